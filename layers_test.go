package cuckoo

import (
	"go/ast"
	gobuild "go/build"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFileLayers holds the package to the map of its files in doc.go: a
// file uses names (functions, methods, types, constants, variables and
// fields) declared in files of its own line or of the lines below, never
// above. It type-checks the files the
// platform running the test builds, without their imports (uses of other
// packages' names stay unresolved, which the check does not need).
func TestFileLayers(t *testing.T) {
	t.Parallel()
	layers := docLayers(t)
	rank := func(file string) int {
		for i, patterns := range layers {
			for _, p := range patterns {
				if ok, _ := filepath.Match(p, file); ok {
					return i
				}
			}
		}
		return -1
	}
	pkg, err := gobuild.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range pkg.GoFiles {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
		if rank(name) < 0 {
			t.Errorf("%s is on no line of doc.go's map", name)
		}
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: bareImporter{}, Error: func(error) {}}
	self, _ := conf.Check(pkg.Name, fset, files, info)
	uses := 0
	for id, obj := range info.Uses {
		if obj.Pkg() != self || !declaredOutside(obj, self) {
			continue
		}
		from := filepath.Base(fset.Position(id.Pos()).Filename)
		to := filepath.Base(fset.Position(obj.Pos()).Filename)
		if from == to {
			continue
		}
		uses++
		if rank(to) < rank(from) {
			t.Errorf("%s uses %s of %s, which doc.go's map lists above it", fset.Position(id.Pos()), obj.Name(), to)
		}
	}
	if uses < 100 { // the check must have seen the package's uses to mean anything
		t.Fatalf("only %d uses of names from other files resolved", uses)
	}
}

// declaredOutside reports whether obj is a name a file can take from
// another: a package-level one, a method or a field, not a local.
func declaredOutside(obj types.Object, pkg *types.Package) bool {
	switch o := obj.(type) {
	case *types.Func:
		return true
	case *types.Var:
		return o.IsField() || o.Parent() == pkg.Scope()
	case *types.TypeName, *types.Const:
		return o.Parent() == pkg.Scope()
	}
	return false
}

// bareImporter gives every import as an empty package.
type bareImporter struct{}

func (bareImporter) Import(path string) (*types.Package, error) {
	p := types.NewPackage(path, filepath.Base(path))
	p.MarkComplete()
	return p, nil
}

// docLayers reads the map of doc.go: one entry a line, the files' name
// patterns in its first column.
func docLayers(t *testing.T) [][]string {
	b, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	_, text, ok := strings.Cut(string(b), "// Where things live")
	if !ok {
		t.Fatal("doc.go has no map")
	}
	var layers [][]string
	for _, line := range strings.Split(text, "\n") {
		entry, ok := strings.CutPrefix(line, "//\t")
		if !ok {
			if len(layers) > 0 && line == "//" {
				break // the end of the map
			}
			continue
		}
		if entry == "" || entry[0] == ' ' {
			continue // a description's second line
		}
		names, _, _ := strings.Cut(entry, "  ")
		layers = append(layers, strings.Split(names, ", "))
	}
	if len(layers) < 10 {
		t.Fatalf("doc.go's map has %d lines", len(layers))
	}
	return layers
}
