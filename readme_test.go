package cuckoo

import (
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
