package pebblefilter_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAPI lists the package's exported declarations, functions with their
// signatures, so that none appears, disappears or changes by accident. (The
// main module's TestAPI does this in full; this package is too small for a
// file of its own.)
func TestAPI(t *testing.T) {
	want := []string{
		"const Name",
		"func Policy(falsePositiveRate float64) pebble.FilterPolicy",
	}
	if got := exportedAPI(t); !slices.Equal(got, want) {
		t.Errorf("exported API:\n\t%s\nwant:\n\t%s\nIf the change is intended, update want in TestAPI.",
			strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// exportedAPI returns the exported declarations of the package's non-test
// files, sorted.
func exportedAPI(t *testing.T) []string {
	names, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	var api []string
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				var b bytes.Buffer
				if d.Recv != nil { // a method: of an exported type?
					printer.Fprint(&b, fset, d.Recv.List[0].Type)
				}
				if d.Name.IsExported() && (d.Recv == nil || ast.IsExported(strings.TrimPrefix(b.String(), "*"))) {
					b.Reset()
					printer.Fprint(&b, fset, &ast.FuncDecl{Recv: d.Recv, Name: d.Name, Type: d.Type})
					api = append(api, b.String())
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								api = append(api, d.Tok.String()+" "+n.Name)
							}
						}
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							api = append(api, "type "+s.Name.Name)
						}
					}
				}
			}
		}
	}
	slices.Sort(api)
	return api
}
