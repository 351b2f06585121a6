package main

import (
	"bufio"
	"bytes"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the repository's top directory: the first directory above the
// bench module that holds .git (a directory, or a file in a worktree).
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("not in a git checkout: no .git above", dir)
		}
		dir = parent
	}
}

// trackedFiles lists the repository's files relative to root, as git
// tracks them, or, without git, every file under root outside dot
// directories (then tracked is false).
func trackedFiles(t *testing.T, root string) (files []string, tracked bool) {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = root
	if out, err := cmd.Output(); err == nil {
		for _, f := range bytes.Split(out, []byte{0}) {
			if len(f) > 0 {
				files = append(files, string(f))
			}
		}
		return files, true
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files, false
}

var (
	// inlineLink is [text](target) or ![alt](target), with an optional
	// "title"; the target may be in <angle brackets>.
	inlineLink = regexp.MustCompile(`!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+"[^"]*")?\s*\)`)
	// refLink is a link reference definition: [label]: target.
	refLink = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)`)
	fence   = regexp.MustCompile("^ {0,3}(```|~~~)")
	scheme  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
)

// stripCodeSpans removes the code spans of a line: a run of backticks up
// to the next run of as many, which a link is never inside.
func stripCodeSpans(line string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(line, '`')
		if i < 0 {
			return b.String() + line
		}
		b.WriteString(line[:i])
		n := len(line[i:]) - len(strings.TrimLeft(line[i:], "`"))
		rest, end := line[i+n:], -1
		for j := 0; j < len(rest); {
			k := strings.IndexByte(rest[j:], '`')
			if k < 0 {
				break
			}
			m := len(rest[j+k:]) - len(strings.TrimLeft(rest[j+k:], "`"))
			if m == n {
				end = j + k + m
				break
			}
			j += k + m
		}
		if end < 0 { // no closing run: the backticks are text
			b.WriteString(line[i : i+n])
			line = rest
			continue
		}
		line = rest[end:]
	}
}

// mdLink is a link found in a Markdown file.
type mdLink struct {
	line   int
	target string
}

// markdownLinks returns the link targets of a Markdown text: inline links
// and images and reference definitions, outside fenced code blocks and
// code spans.
func markdownLinks(text []byte) []mdLink {
	var links []mdLink
	inFence := ""
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := fence.FindStringSubmatch(line); m != nil {
			switch inFence {
			case "":
				inFence = m[1]
			case m[1]:
				inFence = ""
			}
			continue
		}
		if inFence != "" {
			continue
		}
		line = stripCodeSpans(line)
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			links = append(links, mdLink{n, m[1]})
		}
		if m := refLink.FindStringSubmatch(line); m != nil {
			links = append(links, mdLink{n, m[1]})
		}
	}
	return links
}

// localTarget is the path a relative link points to, relative to the
// repository root, or "" for a link to elsewhere (a URL, an anchor of the
// same page). mdDir is the directory of the Markdown file, relative to the
// root; a target starting with / is relative to the root, as on GitHub.
func localTarget(mdDir, target string) (string, error) {
	target = strings.TrimSuffix(strings.TrimPrefix(target, "<"), ">")
	if target == "" || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "//") || scheme.MatchString(target) {
		return "", nil
	}
	target, _, _ = strings.Cut(target, "#")
	target, _, _ = strings.Cut(target, "?")
	p, err := url.PathUnescape(target)
	if err != nil {
		return "", err
	}
	if strings.HasPrefix(p, "/") {
		return filepath.Clean(strings.TrimPrefix(p, "/")), nil
	}
	return filepath.Clean(filepath.Join(mdDir, p)), nil
}

// TestMarkdownLinks checks that every relative link of every Markdown file
// of the repository points to a file or directory the repository holds.
func TestMarkdownLinks(t *testing.T) {
	root := repoRoot(t)
	files, tracked := trackedFiles(t, root)
	have := map[string]bool{}
	for _, f := range files {
		f = filepath.FromSlash(f)
		have[f] = true
		for d := filepath.Dir(f); d != "."; d = filepath.Dir(d) {
			have[d] = true
		}
	}
	checked := 0
	for _, f := range files {
		if !strings.EqualFold(filepath.Ext(f), ".md") {
			continue
		}
		text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			t.Error(err)
			continue
		}
		checked++
		for _, l := range markdownLinks(text) {
			p, err := localTarget(filepath.Dir(filepath.FromSlash(f)), l.target)
			switch {
			case err != nil:
				t.Errorf("%s:%d: link %q: %v", f, l.line, l.target, err)
			case p == "":
			case p == ".." || strings.HasPrefix(p, ".."+string(filepath.Separator)):
				t.Errorf("%s:%d: link %q leaves the repository", f, l.line, l.target)
			case p == ".":
			case !have[p]:
				what := "no such file or directory"
				if _, err := os.Stat(filepath.Join(root, p)); err == nil && tracked {
					what = "not tracked by git"
				}
				t.Errorf("%s:%d: link %q: %s: %s", f, l.line, l.target, filepath.ToSlash(p), what)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no Markdown files found")
	}
}

// TestMarkdownLinkParsing checks what markdownLinks and localTarget take
// for links and what they leave.
func TestMarkdownLinkParsing(t *testing.T) {
	text := "See [the format](FORMAT.md#header) and ![chart](bench/x.svg \"title\").\n" +
		"Code spans: `[not](a-link.md)` and ``New[string](c)``.\n" +
		"```go\nf, _ := cuckoo.New[string](cuckoo.Config{Capacity: 1})\n```\n" +
		"[web](https://example.com/x.md), [anchor](#section), [mail](mailto:a@b.c)\n" +
		"[nested [brackets]](dir/) and [angle](<with space.md>)\n" +
		"[ref]: ../up.md\n"
	var got []string
	for _, l := range markdownLinks([]byte(text)) {
		p, err := localTarget("sub", l.target)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, filepath.ToSlash(p))
	}
	want := []string{"sub/FORMAT.md", "sub/bench/x.svg", "", "", "", "sub/dir", "sub/with space.md", "up.md"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("links: got %q, want %q", got, want)
	}
}
