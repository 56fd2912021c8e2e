package picture

import (
	"bytes"
	"flag"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden PNGs under testdata/")

// checkGolden compares img with testdata/name, pixel for pixel, or
// rewrites the file under -update. A mismatch writes the image drawn to
// the test's temporary directory and names it, so that it can be looked
// at. The golden files were drawn on amd64: another architecture may
// round a few edge pixels differently and fail here, not in the tests
// of facts.
func checkGolden(t *testing.T, name string, img *image.RGBA) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%v (run go test ./picture -update to write it)", err)
	}
	defer f.Close()
	want, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	diff := 0
	if want.Bounds() == img.Bounds() {
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				r0, g0, b0, a0 := want.At(x, y).RGBA()
				r1, g1, b1, a1 := img.At(x, y).RGBA()
				if r0 != r1 || g0 != g1 || b0 != b1 || a0 != a1 {
					diff++
				}
			}
		}
	}
	if want.Bounds() != img.Bounds() || diff > 0 {
		got := filepath.Join(os.TempDir(), "connectn-picture-"+name)
		var buf bytes.Buffer
		png.Encode(&buf, img)
		os.WriteFile(got, buf.Bytes(), 0o644)
		t.Errorf("%s: drawn %v with %d pixels different from the golden %v; drawn image kept at %s (go test -update rewrites the golden)", name, img.Bounds(), diff, want.Bounds(), got)
	}
}
