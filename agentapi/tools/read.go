package tools

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

type readArgs struct {
	FilePath string `json:"file_path"`
	Offset   int    `json:"offset"`
	Limit    int    `json:"limit"`
}

// read shows a text file with line numbers, as `cat -n` does: from line
// offset (1-based; 0 is 1), limit lines (default readLines), each line cut
// at maxLineRunes characters, the whole at maxReadBytes.
func (s *Set) read(ctx context.Context, a readArgs) (string, error) {
	if a.FilePath == "" {
		return "", errors.New("Read needs file_path: the file to read, absolute or relative to the workspace")
	}
	if a.Offset < 0 || a.Limit < 0 {
		return "", errors.New("offset and limit of Read must not be negative: offset is the first line to show (1-based), limit how many lines")
	}
	abs, rel, err := s.path(a.FilePath)
	if err != nil {
		return "", err
	}
	f, fi, err := s.openRead(rel, false)
	if err != nil {
		return "", fmt.Errorf("cannot read %s: %w", abs, unwrapPath(err))
	}
	if f == nil && fi.IsDir() {
		return "", fmt.Errorf("%s is a folder, not a file: list it with Glob (pattern \"*\", path %q) or Bash ls", abs, a.FilePath)
	}
	if f == nil {
		return "", errNotRegular(abs, fi.Mode(), Read)
	}
	defer f.Close()
	if fi.Size() == 0 {
		return "(the file " + abs + " is empty)", nil
	}
	br := bufio.NewReaderSize(f, 64<<10)
	if head, _ := br.Peek(binarySniff); bytes.IndexByte(head, 0) >= 0 {
		return "", fmt.Errorf("%s looks like a binary file (%d bytes); Read shows text files only: inspect it with Bash (file, xxd, head -c)", abs, fi.Size())
	}
	first := max(a.Offset, 1)
	limit := a.Limit
	if limit == 0 {
		limit = readLines
	}
	var (
		out     strings.Builder
		n       int  // lines read so far
		shown   int  // lines written
		full    bool // out reached maxReadBytes
		cutLine bool
	)
	for {
		if n%1024 == 0 && ctx.Err() != nil {
			return "", fmt.Errorf("Read was stopped: %w", ctx.Err())
		}
		line, err := readLine(br)
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("cannot read %s: %w", abs, err)
		}
		n++
		if n < first {
			continue
		}
		if shown == limit || full {
			continue // count the rest of the lines for the note
		}
		if !utf8.ValidString(line) {
			line = strings.ToValidUTF8(line, "\uFFFD")
		}
		if c := cutRunes(line, maxLineRunes); c != line {
			line, cutLine = c, true
		}
		entry := fmt.Sprintf("%6d\t%s\n", n, line)
		if out.Len()+len(entry) > maxReadBytes {
			full = true
			continue
		}
		out.WriteString(entry)
		shown++
	}
	if first > n {
		return "", fmt.Errorf("%s has %d lines, so offset %d is past its end", abs, n, first)
	}
	res := strings.TrimSuffix(out.String(), "\n")
	if last := first + shown - 1; last < n {
		why := fmt.Sprintf("the limit of %d lines", limit)
		if full {
			why = fmt.Sprintf("%d KiB, the most one Read shows", maxReadBytes>>10)
		}
		res += fmt.Sprintf("\n[showing lines %d-%d of %d (%s); call Read with offset %d to see more]", first, last, n, why, last+1)
	}
	if cutLine {
		res += fmt.Sprintf("\n[lines longer than %d characters were cut]", maxLineRunes)
	}
	return res, nil
}

// readLine returns the next line without its end (\n or \r\n), however
// long; io.EOF only when nothing is left.
func readLine(br *bufio.Reader) (string, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if err == bufio.ErrBufferFull {
			if len(buf) > 4*maxLineRunes*utf8.UTFMax {
				// The rest of a giant line is never shown: skip it
				// without holding it.
				for {
					_, err := br.ReadSlice('\n')
					if err == bufio.ErrBufferFull {
						continue
					}
					if err != nil && err != io.EOF {
						return "", err
					}
					return string(buf), nil
				}
			}
			continue
		}
		if err == io.EOF && len(buf) > 0 {
			return string(buf), nil
		}
		if err != nil {
			return "", err
		}
		return strings.TrimSuffix(strings.TrimSuffix(string(buf), "\n"), "\r"), nil
	}
}
