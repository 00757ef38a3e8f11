package ghclient

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/prmonitor/prmonitor/prstatus/sanitize"
)

// A job log is streamed through a cleaner into a ring buffer: memory stays at maxBytes whatever
// the log's size. The cleaner drops, byte by byte (so that any chunking gives the same text):
//
//   - the timestamp GitHub Actions puts before every line ("2026-11-21T12:00:00.1234567Z ");
//   - ANSI escape sequences (CSI such as colours, OSC such as hyperlinks, two-byte escapes);
//   - carriage returns and other C0 controls except tab and newline; a UTF-8 byte-order mark.
//
// What is left keeps its lines; the tail is then cut at a line boundary and sanitised.

// tailText is the cleaned tail of one log.
type tailText struct {
	text      string
	truncated bool
	full      bool  // there was more cleaned text than maxBytes: the tail is as long as it gets
	raw       int64 // bytes read from the log
}

// readTail reads a log and returns the cleaned last maxBytes of it. midLine says the reader starts
// inside the log (a Range request): its first, partial line is dropped and the tail is truncated.
func readTail(ctx context.Context, r io.Reader, maxBytes int, midLine bool) (tailText, error) {
	counted := &countingReader{r: r}
	br := bufio.NewReaderSize(counted, 32<<10)
	if !midLine {
		if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
			_, _ = br.Discard(3)
		}
	}
	cl := newLogCleaner(maxBytes, midLine)
	buf := make([]byte, 32<<10)
	for {
		n, err := br.Read(buf)
		cl.write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			if ctx.Err() != nil {
				return tailText{}, context.Cause(ctx)
			}
			return tailText{}, fmt.Errorf("%w: the log download broke off after %d bytes: %w", ErrUnavailable, counted.n, err)
		}
	}
	text, cut := cl.tail()
	return tailText{text: sanitize.Text(text), truncated: cut || midLine, full: cut, raw: counted.n}, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// cleanState is where the cleaner is in the byte stream.
type cleanState int

const (
	stLineStart cleanState = iota // at a line's start, matching a timestamp (pre holds the bytes)
	stText                        // in a line's text
	stSkipLine                    // dropping a partial first line
	stEsc                         // after ESC
	stEscInter                    // ESC and intermediate bytes, waiting for the final byte
	stCSI                         // in ESC [ parameters
	stOSC                         // in ESC ] string
	stOSCEsc                      // ESC inside an OSC string (ESC \ ends it)
)

// maxEscape bounds an escape sequence: a stray ESC must not swallow a log.
const maxEscape = 256

// tsTemplate is the fixed part of an Actions timestamp; d is a digit. A fraction of up to
// maxFraction digits, a Z and a space follow.
const (
	tsTemplate  = "dddd-dd-ddTdd:dd:dd"
	maxFraction = 12
)

// logCleaner strips one log stream into a ring buffer.
type logCleaner struct {
	out   ring
	state cleanState
	pre   [len(tsTemplate) + 1 + maxFraction + 2]byte
	npre  int
	nesc  int
	// newlines are held back until text follows: trailing ones must not use up the tail.
	newlines int
}

func newLogCleaner(maxBytes int, skipFirstLine bool) *logCleaner {
	c := &logCleaner{out: ring{buf: make([]byte, maxBytes+1)}}
	if skipFirstLine {
		c.state = stSkipLine
	}
	return c
}

// write feeds the next bytes of the log. Runs of plain text are copied in one go.
func (c *logCleaner) write(p []byte) {
	for i := 0; i < len(p); {
		if c.state == stText {
			j := i
			for j < len(p) && plainByte(p[j]) {
				j++
			}
			if j > i {
				c.flushNewlines()
				c.out.write(p[i:j])
				i = j
				continue
			}
		}
		c.step(p[i])
		i++
	}
}

// plainByte is a byte copied as is: printable ASCII, tab and any byte of a multi-byte character.
func plainByte(b byte) bool { return b == '\t' || (b >= 0x20 && b != 0x7f && b != 0x1b) }

func (c *logCleaner) step(b byte) {
	switch c.state {
	case stSkipLine:
		if b == '\n' {
			c.state = stLineStart
		}
	case stLineStart:
		c.timestamp(b)
	case stEsc:
		c.nesc = 1
		switch {
		case b == '[':
			c.state = stCSI
		case b == ']':
			c.state = stOSC
		case b >= 0x20 && b <= 0x2f:
			c.state = stEscInter
		case b >= 0x30 && b <= 0x7e:
			c.state = stText // a two-byte escape, dropped whole
		default:
			c.state = stText
			c.plain(b)
		}
	case stCSI:
		c.nesc++
		switch {
		case b >= 0x40 && b <= 0x7e:
			c.state = stText // the final byte
		case b >= 0x20 && b <= 0x3f && c.nesc < maxEscape:
		default: // not an escape after all (a newline, a high byte, too long)
			c.state = stText
			c.plain(b)
		}
	case stEscInter:
		c.nesc++
		switch {
		case b >= 0x30 && b <= 0x7e:
			c.state = stText // the final byte
		case b >= 0x20 && b <= 0x2f && c.nesc < maxEscape:
		default:
			c.state = stText
			c.plain(b)
		}
	case stOSC:
		c.nesc++
		switch {
		case b == 0x07:
			c.state = stText
		case b == 0x1b:
			c.state = stOSCEsc
		case b == '\n' || c.nesc >= maxEscape:
			c.state = stText
			c.plain(b)
		}
	case stOSCEsc:
		c.state = stText
		if b != '\\' {
			c.plain(b)
		}
	default:
		c.plain(b)
	}
}

// plain handles one byte of text.
func (c *logCleaner) plain(b byte) {
	switch {
	case b == 0x1b:
		c.state = stEsc
	case b == '\n':
		c.newlines++
		c.state = stLineStart
	case plainByte(b):
		c.flushNewlines()
		c.out.writeByte(b)
	}
	// Other controls (CR, BEL, backspace, DEL) are dropped.
}

// flushNewlines writes the newlines held back (no more than the ring keeps).
func (c *logCleaner) flushNewlines() {
	if c.newlines == 0 {
		return
	}
	n := min(c.newlines, len(c.out.buf))
	c.out.total += int64(c.newlines - n)
	for range n {
		c.out.writeByte('\n')
	}
	c.newlines = 0
}

// timestamp matches a line's first bytes against an Actions timestamp. A match is dropped; at the
// first byte that cannot belong to one, the bytes held back are replayed as text.
func (c *logCleaner) timestamp(b byte) {
	i := c.npre
	c.pre[i] = b
	c.npre++
	var ok, done bool
	switch {
	case i < len(tsTemplate):
		if tsTemplate[i] == 'd' {
			ok = b >= '0' && b <= '9'
		} else {
			ok = b == tsTemplate[i]
		}
	case i == len(tsTemplate):
		ok = b == '.' || b == 'Z'
	case c.pre[i-1] == 'Z':
		ok, done = b == ' ' || b == '\n', true
	default: // in the fraction
		ok = (b >= '0' && b <= '9' && i <= len(tsTemplate)+maxFraction) || b == 'Z'
	}
	switch {
	case ok && done:
		c.npre = 0
		c.state = stText
		if b == '\n' {
			c.plain(b)
		}
	case ok:
	default:
		held := c.pre[:c.npre]
		c.npre = 0
		c.state = stText
		for _, h := range held {
			c.step(h)
		}
	}
}

// tail returns the cleaned text kept, cut at a line boundary when the start was dropped, and
// whether anything was cut.
func (c *logCleaner) tail() (string, bool) {
	if c.state == stLineStart && c.npre > 0 { // the log ended inside what looked like a timestamp
		held := c.pre[:c.npre]
		c.npre = 0
		c.state = stText
		c.write(held)
	}
	size := len(c.out.buf) - 1 // the ring keeps one byte more than maxBytes
	b := c.out.bytes()
	if c.out.total <= int64(size) {
		return string(b), false
	}
	// b is size+1 bytes; its last size bytes start a line if the byte before them is a newline.
	if b[0] != '\n' {
		if i := bytes.IndexByte(b[1:], '\n'); i >= 0 && i+2 < len(b) {
			b = b[i+1:]
		} else {
			for len(b) > 1 && !utf8.RuneStart(b[1]) { // one endless line: its tail, on a rune
				b = b[1:]
			}
		}
	}
	return string(b[1:]), true
}

// ring keeps the last len(buf) bytes written.
type ring struct {
	buf   []byte
	pos   int   // where the next byte goes
	total int64 // bytes written in all
}

func (r *ring) write(p []byte) {
	size := len(r.buf)
	r.total += int64(len(p))
	if len(p) >= size {
		copy(r.buf, p[len(p)-size:])
		r.pos = 0
		return
	}
	n := copy(r.buf[r.pos:], p)
	copy(r.buf, p[n:])
	r.pos = (r.pos + len(p)) % size
}

func (r *ring) writeByte(b byte) {
	r.buf[r.pos] = b
	r.pos = (r.pos + 1) % len(r.buf)
	r.total++
}

// bytes returns the kept bytes, oldest first.
func (r *ring) bytes() []byte {
	if r.total < int64(len(r.buf)) {
		return r.buf[:r.pos]
	}
	out := make([]byte, 0, len(r.buf))
	out = append(out, r.buf[r.pos:]...)
	return append(out, r.buf[:r.pos]...)
}
