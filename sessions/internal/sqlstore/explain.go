package sqlstore

// Explained returns err with an explanation for the person running the
// bot in front of it: its Error reads "msg (err)", and it unwraps to err,
// so errors.Is and errors.As still see the cause. Backends use it for the
// driver errors they recognise (a full disk, a refused login, ...).
func Explained(msg string, err error) error { return &explained{msg: msg, err: err} }

type explained struct {
	msg string
	err error
}

func (e *explained) Error() string { return e.msg + " (" + e.err.Error() + ")" }
func (e *explained) Unwrap() error { return e.err }
