package cuckoo

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"testing"
)

// TestDocTables checks the parameter tables of the README and the package
// documentation against the formulas the filter uses.
func TestDocTables(t *testing.T) {
	for _, name := range []string{"README.md", "doc.go"} {
		checkTable(t, name)
	}
}

func checkTable(t *testing.T, name string) {
	text, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile(`(?m)^(?://\t)?\| (\d+) +\| ([0-9.e-]+%?) +\| ([0-9.]+) +\|$`).FindAllStringSubmatch(string(text), -1)
	if len(rows) < 7 {
		t.Fatalf("%s: found %d table rows", name, len(rows))
	}
	for _, r := range rows {
		f, _ := strconv.Atoi(r[1])
		rate := falsePositiveRate(uint(f), targetLoad(uint(f)))
		var want string
		if r[2][len(r[2])-1] == '%' {
			want = fmt.Sprintf("%.2g%%", rate*100)
		} else {
			want = fmt.Sprintf("%.2g", rate)
		}
		bits := fmt.Sprintf("%.1f", float64(f)/targetLoad(uint(f)))
		if r[2] != want || r[3] != bits {
			t.Errorf("%s: f=%s: table says %s, %s; formulas give %s, %s", name, r[1], r[2], r[3], want, bits)
		}
	}
}

// TestREADMEPrograms compiles and runs every Go block of the README that is
// a whole program (it starts with "package main"), against this checkout,
// and compares its output with the "output" block that follows it.
func TestREADMEPrograms(t *testing.T) {
	if !longTests() {
		t.Skip("builds and links a program per block: set CUCKOO_LONG=1")
	}
	text, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```go\n(package main\n.*?)```\n\n```output\n(.*?)```").FindAllStringSubmatch(string(text), -1)
	if len(blocks) < 4 {
		t.Fatalf("found %d programs with output in the README", len(blocks))
	}
	for i, b := range blocks {
		cmd := goCommand(t, "readme", b[1], "run", ".")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("program %d: %v\n%s\n%s", i, err, out, b[1])
		}
		if string(out) != b[2] {
			t.Errorf("program %d printed\n%s\nthe README says\n%s", i, out, b[2])
		}
	}
}

// TestREADMELength keeps the README a guide: what a user needs fits in 400
// lines, and measurement history goes to bench/RESULTS.md.
func TestREADMELength(t *testing.T) {
	text, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(text, []byte("\n")); n > 400 {
		t.Errorf("README.md has %d lines; at most 400", n)
	}
}
