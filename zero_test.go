package cuckoo

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestZeroValues calls every exported method of a zero Filter, View and
// ConcurrentFilter, of two key types, with zero arguments (and a few keys
// for the batches): none may panic, the queries answer as an empty filter,
// and what needs a table returns an error wrapping ErrIncompatible.
func TestZeroValues(t *testing.T) {
	for _, v := range []any{new(Filter[uint64]), new(View[uint64]), new(ConcurrentFilter[uint64]),
		new(Filter[string]), new(View[string]), new(ConcurrentFilter[string])} {
		rv := reflect.ValueOf(v)
		for i := range rv.NumMethod() {
			m := rv.Type().Method(i)
			t.Run(fmt.Sprintf("%T.%s", v, m.Name), func(t *testing.T) {
				fn := rv.Method(i)
				args := make([]reflect.Value, fn.Type().NumIn())
				for j := range args {
					at := fn.Type().In(j)
					switch {
					case at.Kind() == reflect.Slice && at.Elem().Kind() != reflect.Uint8:
						args[j] = reflect.MakeSlice(at, 3, 3)
					case at == reflect.TypeFor[io.Writer]():
						args[j] = reflect.ValueOf(io.Discard)
					case at == reflect.TypeFor[io.Reader]():
						args[j] = reflect.ValueOf(strings.NewReader(""))
					case at.Kind() == reflect.Pointer && at.Elem().Kind() == reflect.Struct:
						args[j] = reflect.New(at.Elem()) // a zero *Filter for Merge
					default:
						args[j] = reflect.Zero(at)
					}
				}
				if m.Name == "Format" {
					return // fmt calls it; TestZeroPrints covers it
				}
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("panic: %v", p)
					}
				}()
				out := fn.Call(args)
				for _, o := range out {
					switch x := o.Interface().(type) {
					case bool:
						if x && m.Name != "InsertUnique" {
							t.Errorf("answered true")
						}
					case int:
						if x != 0 && m.Name != "EncodedSize" {
							t.Errorf("returned %d", x)
						}
					case float64:
						if x != 0 {
							t.Errorf("returned %v", x)
						}
					case error:
						if !errors.Is(x, ErrIncompatible) && !errors.Is(x, ErrCorrupt) && !errors.Is(x, io.EOF) {
							t.Errorf("error %v wraps neither ErrIncompatible nor ErrCorrupt", x)
						}
					}
				}
			})
		}
	}
}

// TestZeroHash checks that a zero filter hashes as one made with Seed 0.
func TestZeroHash(t *testing.T) {
	f := mustNew[string](t, Config{Capacity: 10})
	var z Filter[string]
	var v View[string]
	var c ConcurrentFilter[string]
	if z.Hash("a") != f.Hash("a") || v.Hash("a") != f.Hash("a") || c.Hash("a") != f.Hash("a") {
		t.Fatal("a zero filter's Hash differs from a default filter's")
	}
}

// TestZeroValueDocs reads the doc comments of Filter, View and
// ConcurrentFilter: what they say of the zero value must be what
// TestZeroValues checks, so no sentence about it may promise a panic, a NaN
// or an unusable value.
func TestZeroValueDocs(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE && g.Doc != nil {
				for _, spec := range g.Specs {
					docs[spec.(*ast.TypeSpec).Name.Name] = g.Doc.Text()
				}
			}
		}
	}
	wrong := regexp.MustCompile(`(?i)panic|NaN|not usable|unusable`)
	for _, name := range []string{"Filter", "View", "ConcurrentFilter"} {
		doc := strings.Join(strings.Fields(docs[name]), " ")
		found := false
		for _, sentence := range strings.SplitAfter(doc, ". ") {
			if !strings.Contains(sentence, "zero "+name) {
				continue
			}
			found = true
			if w := wrong.FindString(sentence); w != "" {
				t.Errorf("%s's doc says %q of the zero value: %s", name, w, sentence)
			}
		}
		if !found {
			t.Errorf("%s's doc says nothing of the zero %s", name, name)
		}
	}
}

// TestZeroNewConcurrentFrom: NewConcurrentFrom of nil or of a zero Filter
// is a zero ConcurrentFilter, as its doc says: empty, and its inserts fail.
func TestZeroNewConcurrentFrom(t *testing.T) {
	for name, f := range map[string]*Filter[uint64]{"nil": nil, "zero": new(Filter[uint64])} {
		c := NewConcurrentFrom(f)
		if c == nil || c.Len() != 0 || c.Contains(1) || c.Insert(1) == nil || c.c.cur.Load() != nil {
			t.Errorf("NewConcurrentFrom(%s): not a zero ConcurrentFilter", name)
		}
	}
}
