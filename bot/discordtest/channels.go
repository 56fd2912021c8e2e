package discordtest

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
	fastjson "github.com/segmentio/encoding/json"
)

// The fake knows channels only as far as a bot's requests need them: the
// channels where the bot is not a member (KeepBotOut, and the group DMs and
// DMs between users of registered interactions), the channels where it may
// not open threads (DenyThreads), the DMs and the guilds of the channels of
// registered interactions, and threads: those the bot opens with POST
// /channels/{channel}/threads, those marked with MarkThread, and those
// registered interactions come from. Any other channel ID is accepted by
// the message routes, as before.

// Auto-archive durations of threads, in minutes: the values Discord accepts
// (https://discord.com/developers/docs/resources/channel#thread-metadata-object)
// and the one a thread gets when the request names none (the parent's
// default_auto_archive_duration, which is 1440 unless a moderator changed
// it).
var autoArchiveDurations = []int{60, 1440, 4320, 10080}

const defaultAutoArchive = 1440

// maxRateLimitPerUser is the most seconds of a channel's slow mode.
const maxRateLimitPerUser = 21600

// Thread is a thread channel the Server knows, as Threads and Thread
// return it: its ID, the text channel it belongs to (ParentID), its guild
// ("" when the fake never learned the parent's guild from an interaction),
// its name (1 to 100 characters; "" for a thread marked with MarkThread
// and never named), its channel type (discordgo.ChannelTypeGuildPublicThread,
// 11, or discordgo.ChannelTypeGuildPrivateThread, 12; 10, an announcement
// thread, when an interaction came from one), its auto-archive
// duration in minutes (60, 1440, 4320 or 10080) and whether it is archived
// and locked now, on the Server's clock.
type Thread struct {
	ID, ParentID, GuildID, Name string
	Type                        discordgo.ChannelType
	AutoArchiveDuration         int
	Archived, Locked            bool
}

// threadState is the state of a thread. Guarded by Server.mu.
type threadState struct {
	id, parentID, guildID, name string
	ownerID                     string // the bot for threads it opened; "" when unknown
	typ                         discordgo.ChannelType
	autoArchive                 int // minutes
	archived, locked, invitable bool
	rateLimit                   int
	created, archiveTS          time.Time
	lastActivity                time.Time // creation, unarchiving or the last message
	lastMessageID               string
	messageCount, totalSent     int
	joined                      time.Time // when the bot joined; zero when it is not a member
}

// refresh archives t when it has been inactive for its auto-archive
// duration at now, as Discord does (the archive timestamp is then the end of
// that duration).
func (t *threadState) refresh(now time.Time) {
	if t.archived {
		return
	}
	if end := t.lastActivity.Add(time.Duration(t.autoArchive) * time.Minute); !now.Before(end) {
		t.archived, t.archiveTS = true, end
	}
}

// unarchive reopens t at now.
func (t *threadState) unarchive(now time.Time) {
	t.archived, t.archiveTS, t.lastActivity = false, now, now
}

func (t *threadState) public() Thread {
	return Thread{ID: t.id, ParentID: t.parentID, GuildID: t.guildID, Name: t.name, Type: t.typ,
		AutoArchiveDuration: t.autoArchive, Archived: t.archived, Locked: t.locked}
}

// wire returns t as Discord returns a thread channel; botID is the bot's
// user ID, for its thread member.
func (t *threadState) wire(botID string) *wireThread {
	created := t.created.UTC().Format(timestampLayout)
	w := &wireThread{ID: t.id, Type: t.typ, GuildID: t.guildID, ParentID: t.parentID, OwnerID: t.ownerID, Name: t.name,
		RateLimitPerUser: t.rateLimit, MessageCount: t.messageCount, TotalMessageSent: t.totalSent, MemberCount: 1,
		Metadata: wireThreadMetadata{Archived: t.archived, AutoArchiveDuration: t.autoArchive, Locked: t.locked,
			ArchiveTimestamp: t.archiveTS.UTC().Format(timestampLayout), CreateTimestamp: &created}}
	if t.lastMessageID != "" {
		w.LastMessageID = &t.lastMessageID
	}
	if t.typ == discordgo.ChannelTypeGuildPrivateThread {
		inv := t.invitable
		w.Metadata.Invitable = &inv
	}
	if !t.joined.IsZero() {
		w.Member = &wireThreadMember{ID: t.id, UserID: botID, JoinTimestamp: t.joined.UTC().Format(timestampLayout)}
	}
	return w
}

// KeepBotOut makes the bot a stranger to the channels channelIDs (and to
// the threads whose parent is one of them), as in a server that did not
// install the app, where it is used through a member's own install: every
// REST request with the bot token ("Authorization: Bot <token>") on
// /channels/{id} or /channels/{id}/... (creating and editing messages,
// starting threads, editing the channel, and the routes the fake does not
// serve) is answered 403 {"message": "Missing Access", "code": 50001}, as
// Discord answers it
// (https://discord.com/developers/docs/topics/opcodes-and-status-codes#json).
// The interaction callback and the /webhooks/{app}/{token} routes keep
// working: there the interaction token is the only way to speak. A Server
// does the same by itself for the channel of every registered interaction
// of context 2 (a group DM, or a DM between users). BotTokenCalls tells
// whether the bot tried.
func (s *Server) KeepBotOut(channelIDs ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range channelIDs {
		s.keptOut[id] = true
	}
}

// DenyThreads makes POST /channels/{id}/threads, for each of channelIDs,
// answer 403 {"message": "Missing Permissions", "code": 50013}, as for a
// bot without the Create Public Threads (or Create Private Threads)
// permission there.
func (s *Server) DenyThreads(channelIDs ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range channelIDs {
		s.denyThreads[id] = true
	}
}

// MarkThread tells the Server that the channel id is an open public thread
// (type 11) of the text channel parentID, created now and never named, as
// if someone else had opened it: starting a thread in it is refused (400,
// 50024), the bot may post in it and edit it (PATCH /channels/{id}), and
// Threads and Thread list it. A thread the Server knows already is left as
// it is. Registering an interaction whose channel object is a thread
// (types 10 to 12, with parent_id) marks it the same way, with its name
// and type.
func (s *Server) MarkThread(id, parentID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.markThreadLocked(id, parentID, s.channelGuild[parentID], "", discordgo.ChannelTypeGuildPublicThread)
}

// markThreadLocked adds a thread someone else opened, unless it is known.
// s.mu must be held.
func (s *Server) markThreadLocked(id, parentID, guildID, name string, typ discordgo.ChannelType) {
	if s.threads[id] != nil {
		return
	}
	now := s.now()
	s.addThreadLocked(&threadState{id: id, parentID: parentID, guildID: guildID, name: name, typ: typ,
		autoArchive: defaultAutoArchive, created: now, archiveTS: now, lastActivity: now})
}

func (s *Server) addThreadLocked(t *threadState) {
	s.threads[t.id] = t
	s.threadOrder = append(s.threadOrder, t.id)
	s.notifyLocked()
}

// Threads returns the threads the Server knows (opened by the bot, marked
// with MarkThread or met in a registered interaction), in the order it
// learned of them, as they are now on its clock; nil if there is none.
func (s *Server) Threads() []Thread {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Thread
	now := s.now()
	for _, id := range s.threadOrder {
		t := s.threads[id]
		t.refresh(now)
		out = append(out, t.public())
	}
	return out
}

// Thread returns the thread id as it is now on the Server's clock, and
// whether the Server knows it (see Threads).
func (s *Server) Thread(id string) (Thread, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.threads[id]
	if t == nil {
		return Thread{}, false
	}
	t.refresh(s.now())
	return t.public(), true
}

// BotTokenCalls returns a copy of every REST request made with a bot token
// (an Authorization header "Bot ...", the Server's token or not) whose path
// names the channel channelID (/channels/{channelID} or below it), oldest
// first, whether it was answered or refused; nil if there is none. A test
// asserts with it that the bot did not try to speak where it is not a
// member.
func (s *Server) BotTokenCalls(channelID string) []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Request
	for _, r := range s.requests {
		if strings.HasPrefix(r.Header.Get("Authorization"), "Bot ") && pathChannel(r.Path) == channelID {
			out = append(out, copyRequest(r))
		}
	}
	return out
}

// pathChannel returns the channel ID a path /channels/{id}[/...] names,
// "" for other paths.
func pathChannel(path string) string {
	rest, ok := strings.CutPrefix(path, "/channels/")
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(rest, "/")
	return id
}

// keptOutLocked reports whether the bot is a stranger to the channel id,
// or to the parent of the thread id. s.mu must be held.
func (s *Server) keptOutLocked(id string) bool {
	if s.keptOut[id] {
		return true
	}
	t := s.threads[id]
	return t != nil && s.keptOut[t.parentID]
}

// refuseStranger answers 403 Missing Access, and returns true, for a
// request with the bot token on a channel the bot is kept out of.
func (s *Server) refuseStranger(w http.ResponseWriter, r *http.Request, path string) bool {
	id := pathChannel(path)
	if id == "" || r.Header.Get("Authorization") != "Bot "+s.cfg.token {
		return false
	}
	s.mu.Lock()
	out := s.keptOutLocked(id)
	s.mu.Unlock()
	if out {
		writeAPIError(w, errMissingAccess)
	}
	return out
}

// channelHint is what the channel object of a registered interaction
// tells the fake.
type channelHint struct {
	Type     discordgo.ChannelType `json:"type"`
	ParentID string                `json:"parent_id"`
	Name     string                `json:"name"`
}

// learnLocked remembers what the registered interaction i (whose channel
// object is ch, nil when unknown) tells about its channel: its guild, that
// it is a DM, that the bot is kept out of it (context 2), that it is a
// thread. s.mu must be held.
func (s *Server) learnLocked(i *discordgo.Interaction, ch *channelHint) {
	id := i.ChannelID
	if id == "" {
		return
	}
	if i.GuildID != "" {
		s.channelGuild[id] = i.GuildID
	}
	switch i.Context {
	case discordgo.InteractionContextBotDM:
		s.dmChannels[id] = true
	case discordgo.InteractionContextPrivateChannel:
		s.dmChannels[id] = true
		s.keptOut[id] = true
	}
	if ch == nil {
		return
	}
	switch {
	case ch.Type == discordgo.ChannelTypeDM || ch.Type == discordgo.ChannelTypeGroupDM:
		s.dmChannels[id] = true
	case isThread(ch.Type) && ch.ParentID != "":
		s.markThreadLocked(id, ch.ParentID, i.GuildID, ch.Name, ch.Type)
	}
}

// threadStartBody is the body of Start Thread without Message
// (https://discord.com/developers/docs/resources/channel#start-thread-without-message).
type threadStartBody struct {
	Name                *string                `json:"name"`
	Type                *discordgo.ChannelType `json:"type"`
	AutoArchiveDuration *int                   `json:"auto_archive_duration"`
	Invitable           *bool                  `json:"invitable"`
	RateLimitPerUser    *int                   `json:"rate_limit_per_user"`
}

// threadCreate handles POST /channels/{channel}/threads, Start Thread
// without Message: with the bot token (discordgo's Session.ThreadStart and
// ThreadStartComplex), a body {name, type?, auto_archive_duration?,
// invitable?, rate_limit_per_user?}. It answers 201 with the new thread
// channel: a new snowflake ID, the type (11 public or 12 private; Discord
// makes a private thread when type is absent), parent_id, guild_id when the
// fake knows the parent's guild, the bot as owner_id and member, name,
// thread_metadata {archived false, auto_archive_duration (1440 when
// absent), archive_timestamp, locked false, invitable for a private thread,
// create_timestamp}, message_count 0 and member_count 1. It refuses, with
// Discord's errors: a channel the bot is kept out of, 403 50001 (before
// this handler); a body that is not JSON, 400 50109; a name missing or not
// of 1 to 100 characters, a type other than 11 and 12, an
// auto_archive_duration other than 60, 1440, 4320 and 10080 or a
// rate_limit_per_user outside 0 to 21600, 400 50035 naming the field; a DM
// or group DM, 400 50003; a parent that is a thread, 400 50024; a channel
// of DenyThreads, 403 50013.
func (s *Server) threadCreate(w http.ResponseWriter, r *http.Request) {
	var body threadStartBody
	raw, _ := io.ReadAll(r.Body)
	if t := strings.TrimSpace(string(raw)); t == "" || t[0] != '{' || fastjson.Unmarshal(raw, &body) != nil {
		writeAPIError(w, errInvalidJSON)
		return
	}
	v := &sizes{}
	if body.Name == nil {
		v.add("name", "BASE_TYPE_REQUIRED", "This field is required")
	} else {
		v.text("thread.name", "name", *body.Name)
	}
	typ := discordgo.ChannelTypeGuildPrivateThread
	if body.Type != nil {
		typ = *body.Type
		if typ != discordgo.ChannelTypeGuildPublicThread && typ != discordgo.ChannelTypeGuildPrivateThread {
			v.add("type", "BASE_TYPE_CHOICES", "Value must be one of {11, 12}.")
		}
	}
	archive := checkAutoArchive(v, body.AutoArchiveDuration)
	checkRateLimit(v, body.RateLimitPerUser)
	if len(v.errs) > 0 {
		writeAPIError(w, formError(v.errs))
		return
	}

	parent := r.PathValue("channel")
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.dmChannels[parent]:
		writeAPIError(w, errDMChannel)
		return
	case s.threads[parent] != nil:
		writeAPIError(w, errChannelType)
		return
	case s.denyThreads[parent]:
		writeAPIError(w, errMissingPermissions)
		return
	}
	now := s.now()
	t := &threadState{id: s.newID(), parentID: parent, guildID: s.channelGuild[parent], name: *body.Name, ownerID: s.cfg.appID,
		typ: typ, autoArchive: archive, created: now, archiveTS: now, lastActivity: now, joined: now}
	if body.Invitable != nil && typ == discordgo.ChannelTypeGuildPrivateThread {
		t.invitable = *body.Invitable
	} else if typ == discordgo.ChannelTypeGuildPrivateThread {
		t.invitable = true // Discord's default for a private thread
	}
	if body.RateLimitPerUser != nil {
		t.rateLimit = *body.RateLimitPerUser
	}
	s.addThreadLocked(t)
	writeJSON(w, http.StatusCreated, t.wire(s.cfg.appID))
}

// checkAutoArchive checks an auto_archive_duration and returns it, or the
// default when it is absent.
func checkAutoArchive(v *sizes, d *int) int {
	if d == nil {
		return defaultAutoArchive
	}
	if !slices.Contains(autoArchiveDurations, *d) {
		v.add("auto_archive_duration", "BASE_TYPE_CHOICES", "Value must be one of {60, 1440, 4320, 10080}.")
	}
	return *d
}

// checkRateLimit checks a rate_limit_per_user, in seconds.
func checkRateLimit(v *sizes, n *int) {
	switch {
	case n == nil:
	case *n < 0:
		v.add("rate_limit_per_user", "NUMBER_TYPE_MIN", "int value should be greater than or equal to 0.")
	case *n > maxRateLimitPerUser:
		v.add("rate_limit_per_user", "NUMBER_TYPE_MAX", fmt.Sprintf("int value should be less than or equal to %d.", maxRateLimitPerUser))
	}
}

// threadEditBody is the body of Modify Channel for a thread
// (https://discord.com/developers/docs/resources/channel#modify-channel-json-params-thread).
type threadEditBody struct {
	Name                *string `json:"name"`
	Archived            *bool   `json:"archived"`
	Locked              *bool   `json:"locked"`
	AutoArchiveDuration *int    `json:"auto_archive_duration"`
	Invitable           *bool   `json:"invitable"`
	RateLimitPerUser    *int    `json:"rate_limit_per_user"`
}

// channelEdit handles PATCH /channels/{channel}, Modify Channel, for the
// threads the fake knows (discordgo's Session.ChannelEdit and
// ChannelEditComplex): name (1 to 100 characters), archived, locked,
// auto_archive_duration, invitable (private threads) and
// rate_limit_per_user update the thread, and it answers 200 with the
// thread channel. Archiving or unarchiving sets archive_timestamp. Like
// Discord, it refuses an edit of an archived thread that does not set
// archived to false, 400 {"message": "Thread is archived", "code": 50083}.
// A channel the bot is kept out of gets 403 50001 (before this handler), a
// body that is not JSON 400 50109, an invalid field 400 50035 naming it,
// and a channel that is not a thread the fake knows 404 {"message":
// "Unknown Channel", "code": 10003}: the fake has no other channels.
func (s *Server) channelEdit(w http.ResponseWriter, r *http.Request) {
	var body threadEditBody
	raw, _ := io.ReadAll(r.Body)
	if t := strings.TrimSpace(string(raw)); t == "" || t[0] != '{' || fastjson.Unmarshal(raw, &body) != nil {
		writeAPIError(w, errInvalidJSON)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.threads[r.PathValue("channel")]
	if t == nil {
		writeAPIError(w, errUnknownChannel)
		return
	}
	v := &sizes{}
	if body.Name != nil {
		v.text("thread.name", "name", *body.Name)
	}
	if body.AutoArchiveDuration != nil {
		checkAutoArchive(v, body.AutoArchiveDuration)
	}
	checkRateLimit(v, body.RateLimitPerUser)
	if len(v.errs) > 0 {
		writeAPIError(w, formError(v.errs))
		return
	}
	now := s.now()
	t.refresh(now)
	if t.archived && (body.Archived == nil || *body.Archived) {
		writeAPIError(w, errThreadArchived)
		return
	}
	if body.Name != nil {
		t.name = *body.Name
	}
	if body.AutoArchiveDuration != nil {
		t.autoArchive = *body.AutoArchiveDuration
	}
	if body.Locked != nil {
		t.locked = *body.Locked
	}
	if body.Invitable != nil && t.typ == discordgo.ChannelTypeGuildPrivateThread {
		t.invitable = *body.Invitable
	}
	if body.RateLimitPerUser != nil {
		t.rateLimit = *body.RateLimitPerUser
	}
	switch {
	case body.Archived == nil:
	case *body.Archived && !t.archived:
		t.archived, t.archiveTS = true, now
	case !*body.Archived && t.archived:
		t.unarchive(now)
	}
	s.notifyLocked()
	writeJSON(w, http.StatusOK, t.wire(s.cfg.appID))
}

// postInThreadLocked applies a new message msgID of the bot to the thread
// id, when it is one: an archived thread is unarchived first, as Discord
// does, unless it is locked (400 50083, as for a bot without Manage
// Threads); the bot joins it, and its counts and last_message_id move. It
// returns nil for a channel that is not a known thread. s.mu must be held.
func (s *Server) postInThreadLocked(id, msgID string) *APIError {
	t := s.threads[id]
	if t == nil {
		return nil
	}
	now := s.now()
	t.refresh(now)
	if t.archived {
		if t.locked {
			return errThreadArchived
		}
		t.unarchive(now)
	}
	if t.joined.IsZero() {
		t.joined = now
	}
	t.lastMessageID, t.lastActivity = msgID, now
	t.messageCount++
	t.totalSent++
	return nil
}

// editInThreadLocked refuses, 400 50083, an edit of a message in the
// archived thread id, as Discord does; nil for an open thread or another
// channel. s.mu must be held.
func (s *Server) editInThreadLocked(id string) *APIError {
	t := s.threads[id]
	if t == nil {
		return nil
	}
	t.refresh(s.now())
	if t.archived {
		return errThreadArchived
	}
	return nil
}
