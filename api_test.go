package cuckoo_test

import (
	"bytes"
	"cmp"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

var updateAPI = flag.Bool("update-api", false, "rewrite the files of apiPackages with the packages' exported API")

// apiPackages are the packages whose exported API TestAPI holds, each to a
// file listing it one declaration a line, as exportedAPI writes it: this
// package and the engine integrations beside it (their own modules, read
// here as files).
var apiPackages = []struct{ name, dir, file string }{
	{"cuckoo", ".", "testdata/api.txt"},
	{"pebblefilter", "pebblefilter", "testdata/api-pebblefilter.txt"},
	{"leveldbfilter", "leveldbfilter", "testdata/api-leveldbfilter.txt"},
}

// apiContexts are the builds whose exported API must be the same: the
// architectures with and without assembly, the pure Go build, the race
// build, and operating systems other than Linux.
var apiContexts = []struct{ goos, goarch, tags string }{
	{"linux", "amd64", ""},
	{"linux", "arm64", ""},
	{"linux", "s390x", ""},
	{"linux", "386", ""},
	{"linux", "amd64", "purego"},
	{"linux", "arm64", "purego"},
	{"linux", "amd64", "race"},
	{"darwin", "arm64", ""},
	{"windows", "amd64", ""},
}

// TestAPI compares each package's exported API (every exported constant,
// variable, type with its exported fields, function and method, with their
// signatures) with its list in testdata, so that no exported name appears,
// disappears or changes by accident. The list is that of the default build
// of the running platform, and it must be the same under every build of
// apiContexts.
func TestAPI(t *testing.T) {
	t.Parallel()
	for _, p := range apiPackages {
		t.Run(p.name, func(t *testing.T) { testAPI(t, p.name, p.dir, p.file) })
	}
}

func testAPI(t *testing.T, name, dir, apiFile string) {
	got, err := exportedAPI(dir, runtime.GOOS, runtime.GOARCH, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range apiContexts {
		other, err := exportedAPI(dir, c.goos, c.goarch, c.tags)
		if err != nil {
			t.Fatal(err)
		}
		if d := apiDiff(got, other); d != "" {
			t.Errorf("the exported API of GOOS=%s GOARCH=%s tags=%q differs from the default build's:\n%s",
				c.goos, c.goarch, c.tags, d)
		}
	}

	text := "# The exported API of package " + name + ", one declaration a line (TestAPI).\n" +
		"# To change it on purpose: go test -run TestAPI -update-api\n" +
		strings.Join(got, "\n") + "\n"
	if *updateAPI {
		if err := os.WriteFile(apiFile, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(apiFile)
	if err != nil {
		t.Fatalf("%v\nto create it: go test -run TestAPI -update-api", err)
	}
	var want []string
	for _, line := range strings.Split(string(data), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			want = append(want, line)
		}
	}
	if d := apiDiff(want, got); d != "" {
		t.Errorf("the exported API differs from %s:\n%s"+
			"If the change is intended, run: go test -run TestAPI -update-api", apiFile, d)
	}
}

// exportedAPI returns the sorted lines of the exported API of the non-test
// files of the package in dir that the build for goos, goarch and the
// comma-separated tags compiles.
func exportedAPI(dir, goos, goarch, tags string) ([]string, error) {
	ctx := build.Default
	ctx.GOOS, ctx.GOARCH, ctx.Compiler = goos, goarch, "gc"
	ctx.CgoEnabled = false
	ctx.BuildTags = nil
	if tags != "" {
		ctx.BuildTags = strings.Split(tags, ",")
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var lines []string
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		if ok, err := ctx.MatchFile(dir, filepath.Base(name)); err != nil {
			return nil, err
		} else if !ok {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		lines = append(lines, declLines(fset, f)...)
	}
	slices.SortFunc(lines, func(a, b string) int { // Build before BuildHashes
		return cmp.Or(cmp.Compare(apiKey(a), apiKey(b)), cmp.Compare(a, b))
	})
	return slices.Compact(lines), nil
}

// declLines returns a line for each exported declaration of f:
//
//	const Name Type = value (iota = N, if value uses iota)
//	var Name Type = value
//	func Name[TypeParams](ParamTypes) Results
//	method (*Type[T]) Name(ParamTypes) Results
//	type Name[TypeParams] Type          (struct and interface types are listed whole, but for their exported fields only)
//	field Type.Name FieldType
//	embedded Type.EmbeddedType
//
// Parameter names are left out: renaming one changes no caller.
func declLines(fset *token.FileSet, f *ast.File) []string {
	var lines []string
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() || d.Recv != nil && !ast.IsExported(recvName(d.Recv)) {
				continue
			}
			kind := "func"
			if d.Recv != nil {
				kind = "method"
			}
			sig := &ast.FuncDecl{Recv: unnamed(d.Recv), Name: d.Name, Type: &ast.FuncType{
				TypeParams: d.Type.TypeParams, Params: unnamed(d.Type.Params), Results: unnamed(d.Type.Results)}}
			lines = append(lines, kind+strings.TrimPrefix(nodeText(fset, sig), "func"))
		case *ast.GenDecl:
			lines = append(lines, genDeclLines(fset, d)...)
		}
	}
	return lines
}

func genDeclLines(fset *token.FileSet, d *ast.GenDecl) []string {
	var lines []string
	// A constant spec without values repeats the type and values of the
	// last one with values, at its own iota.
	var typ ast.Expr
	var values []ast.Expr
	for n, spec := range d.Specs {
		switch s := spec.(type) {
		case *ast.ValueSpec:
			if d.Tok == token.CONST && len(s.Values) > 0 {
				typ, values = s.Type, s.Values
			}
			if d.Tok == token.VAR {
				typ, values = s.Type, s.Values
			}
			for i, name := range s.Names {
				if !name.IsExported() {
					continue
				}
				line := d.Tok.String() + " " + name.Name
				if typ != nil {
					line += " " + nodeText(fset, typ)
				}
				if i < len(values) {
					v := nodeText(fset, values[i])
					line += " = " + v
					if d.Tok == token.CONST && usesIota(values[i]) {
						line += fmt.Sprintf(" (iota = %d)", n)
					}
				}
				lines = append(lines, line)
			}
		case *ast.TypeSpec:
			if !s.Name.IsExported() {
				continue
			}
			name := s.Name.Name
			switch t := s.Type.(type) {
			case *ast.StructType:
				lines = append(lines, "type "+nodeText(fset, &ast.TypeSpec{Name: s.Name, TypeParams: s.TypeParams, Type: ast.NewIdent("struct")}))
				for _, field := range t.Fields.List {
					if len(field.Names) == 0 { // embedded: its exported names are promoted
						lines = append(lines, "embedded "+name+"."+nodeText(fset, field.Type))
					}
					for _, n := range field.Names {
						if n.IsExported() {
							lines = append(lines, "field "+name+"."+n.Name+" "+nodeText(fset, field.Type))
						}
					}
				}
			default: // interfaces (whole: their methods and type sets), named types, aliases
				lines = append(lines, "type "+nodeText(fset, &ast.TypeSpec{Name: s.Name, TypeParams: s.TypeParams, Assign: s.Assign, Type: s.Type}))
			}
		}
	}
	return lines
}

// usesIota reports whether the constant expression e refers to iota.
func usesIota(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == "iota" {
			found = true
		}
		return !found
	})
	return found
}

// recvName returns the name of a method receiver's type.
func recvName(recv *ast.FieldList) string {
	t := recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// unnamed returns fields with the same types and no names, one field per
// name, so that "a, b int" and "int, int" read alike.
func unnamed(fields *ast.FieldList) *ast.FieldList {
	if fields == nil {
		return nil
	}
	out := &ast.FieldList{}
	for _, f := range fields.List {
		for range max(1, len(f.Names)) {
			out.List = append(out.List, &ast.Field{Type: f.Type})
		}
	}
	return out
}

// nodeText prints n on one line.
func nodeText(fset *token.FileSet, n any) string {
	var b bytes.Buffer
	if err := printer.Fprint(&b, fset, n); err != nil {
		panic(err)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// apiDiff describes how the sorted API lines got differ from want: the
// declarations added, removed and changed (the same name, another line), or
// "" if they are the same.
func apiDiff(want, got []string) string {
	wantBy, gotBy := apiByKey(want), apiByKey(got)
	var added, removed, changed []string
	for k, g := range gotBy {
		if w, ok := wantBy[k]; !ok {
			added = append(added, "  + "+g)
		} else if w != g {
			changed = append(changed, "  - "+w+"\n  + "+g)
		}
	}
	for k, w := range wantBy {
		if _, ok := gotBy[k]; !ok {
			removed = append(removed, "  - "+w)
		}
	}
	var b strings.Builder
	for _, part := range []struct {
		title string
		lines []string
	}{{"added", added}, {"removed", removed}, {"changed", changed}} {
		if len(part.lines) > 0 {
			slices.Sort(part.lines)
			fmt.Fprintf(&b, "%s:\n%s\n", part.title, strings.Join(part.lines, "\n"))
		}
	}
	return b.String()
}

// apiByKey maps each line's key, its kind and name, to the line.
func apiByKey(lines []string) map[string]string {
	m := make(map[string]string, len(lines))
	for _, line := range lines {
		m[apiKey(line)] = line
	}
	return m
}

// apiKey returns the kind and name that a line of exportedAPI declares:
// "func New" for "func New[T Hashable](Config) (*Filter[T], error)",
// "method (*Filter[T]) Insert" for "method (*Filter[T]) Insert(T) error".
func apiKey(line string) string {
	kind, rest, _ := strings.Cut(line, " ")
	prefix := kind + " "
	if kind == "method" { // the receiver, then the name
		i := strings.Index(rest, ") ")
		if i < 0 {
			return line
		}
		prefix += rest[:i+2]
		rest = rest[i+2:]
	}
	if i := strings.IndexAny(rest, " [("); i >= 0 {
		rest = rest[:i]
	}
	return prefix + rest
}
