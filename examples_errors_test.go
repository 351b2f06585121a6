package cuckoo

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mustCheck names the constructors and inserts whose error a runnable
// Example must not drop: users copy Examples, and an ignored ErrFull from
// InsertUnique reads as "already seen" and silently loses the key. Each of
// them returns its error last.
var mustCheck = map[string]bool{
	"New":             true,
	"NewConcurrent":   true,
	"Insert":          true,
	"InsertHash":      true,
	"InsertBatch":     true,
	"InsertHashBatch": true,
	"InsertUnique":    true,
}

// TestExamplesHandleInsertErrors parses the Example files of this package
// and of the pebblefilter and leveldbfilter modules, and the README's Go
// blocks (a block that is not a whole program parsed as a function's
// body), and fails at each call of a mustCheck name whose result is
// dropped (a statement of its own, go or defer) or whose error, the last
// result, is assigned to _.
func TestExamplesHandleInsertErrors(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	if len(blocks) < 5 {
		t.Fatalf("found %d Go blocks in the README", len(blocks))
	}
	rfset := token.NewFileSet()
	for i, b := range blocks {
		src := b[1]
		if !strings.HasPrefix(src, "package ") {
			imports := ""
			if strings.HasPrefix(src, "import (") { // a snippet's imports, then its statements
				end := strings.Index(src, "\n)\n") + 3
				imports, src = src[:end], src[end:]
			}
			src = "package p\n" + imports + "func _() {\n" + src + "\n}\n"
		}
		f, err := parser.ParseFile(rfset, fmt.Sprintf("README.md, Go block %d", i+1), src, 0)
		if err != nil {
			t.Fatalf("README.md, Go block %d: %v", i+1, err)
		}
		for _, msg := range droppedErrors(rfset, f) {
			t.Error(msg)
		}
	}

	var files []string
	for _, dir := range []string{".", "pebblefilter", "leveldbfilter"} {
		m, err := filepath.Glob(filepath.Join(dir, "example*_test.go"))
		if err != nil {
			t.Fatal(err)
		}
		if len(m) == 0 {
			t.Fatalf("no example*_test.go in %s", dir)
		}
		files = append(files, m...)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, msg := range droppedErrors(fset, f) {
			t.Error(msg)
		}
	}
}

// TestDroppedErrors checks the checker: each way of dropping the error is
// found once, and the ways of handling it are not reported.
func TestDroppedErrors(t *testing.T) {
	const src = `package p
func bad() {
	f, _ := cuckoo.New[string](cfg)
	g, _ := cuckoo.NewConcurrent[string](cfg)
	_ = f.Insert(1)
	f.InsertHash(2)
	fresh, _ := f.InsertUnique(3)
	_, _ = g.InsertBatch(keys)
	blocks[i], _ = cuckoo.New[string](cfg)
	go f.Insert(4)
	defer g.InsertHashBatch(hashes)
	var h, _ = cuckoo.New[int](cfg)
}
func good() {
	f, err := cuckoo.New[string](cfg)
	if err := f.Insert(1); err != nil {
	}
	fresh, err := f.InsertUnique(3)
	_, err = f.InsertBatch(keys)
	err = f.InsertHash(2)
	fmt.Println(f.InsertUnique(5))
	o := &opt.Options{Filter: leveldbfilter.New(0.001)}
	f.Contains(1)
	_ = f.Len()
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := droppedErrors(fset, f)
	var want []string // one report for each line of bad's body, 3 to 12
	for line := 3; line <= 12; line++ {
		want = append(want, fmt.Sprintf("p.go:%d:", line))
	}
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = strings.HasPrefix(got[i], want[i])
	}
	if !ok {
		t.Errorf("found:\n%s\nwant a report at each of:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// droppedErrors returns "file:line: ..." for each call of a mustCheck name in
// f whose error is dropped.
func droppedErrors(fset *token.FileSet, f *ast.File) []string {
	var out []string
	report := func(call ast.Expr, how string) {
		if name := calledName(call); mustCheck[name] {
			out = append(out, fset.Position(call.Pos()).String()+": "+how+" of "+name)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.ExprStmt:
			report(s.X, "result dropped")
		case *ast.GoStmt:
			report(s.Call, "result dropped by go")
		case *ast.DeferStmt:
			report(s.Call, "result dropped by defer")
		case *ast.AssignStmt:
			if len(s.Rhs) == 1 && isBlank(s.Lhs[len(s.Lhs)-1]) {
				report(s.Rhs[0], "error assigned to _")
			}
		case *ast.ValueSpec:
			if len(s.Values) == 1 && isBlank(s.Names[len(s.Names)-1]) {
				report(s.Values[0], "error assigned to _")
			}
		}
		return true
	})
	return out
}

// calledName returns the name of the function or method e calls, type
// arguments and parentheses removed, or "" if e is not a call.
func calledName(e ast.Expr) string {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return ""
	}
	fun := ast.Unparen(call.Fun)
	switch x := fun.(type) {
	case *ast.IndexExpr:
		fun = x.X
	case *ast.IndexListExpr:
		fun = x.X
	}
	switch x := fun.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return x.Sel.Name
	}
	return ""
}

func isBlank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}
