package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
)

// source is a Go file, for naming a mutant's line and function.
type source struct {
	lines []string
	fset  *token.FileSet
	file  *ast.File
}

func newSource(path string) (*source, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, b, 0)
	if err != nil {
		return nil, err
	}
	return &source{lines: strings.Split(string(b), "\n"), fset: fset, file: f}, nil
}

// operator returns the trimmed text of line and the operator at col,
// numbered among the line's same operators ("<#1"), which name a mutant
// wherever the line moves.
func (s *source) operator(line, col int) (text, op string) {
	if line < 1 || line > len(s.lines) {
		return "", ""
	}
	l := s.lines[line-1]
	text = strings.TrimSpace(l)
	if col < 1 || col > len(l) {
		return text, ""
	}
	tok := leadingOperator(l[col-1:])
	n := strings.Count(l[:col-1], tok) + 1
	return text, fmt.Sprintf("%s#%d", tok, n)
}

// leadingOperator returns the Go operator s starts with.
func leadingOperator(s string) string {
	for _, op := range []string{"<<=", ">>=", "&^=", "&&", "||", "<=", ">=", "==", "!=", "++", "--", "+=", "-=", "*=", "/=", "%=", "<<", ">>", "&^", "<", ">", "+", "-", "*", "/", "%", "!", "&", "|", "^"} {
		if strings.HasPrefix(s, op) {
			return op
		}
	}
	if s != "" {
		return s[:1]
	}
	return ""
}

// funcAt names the function declaration holding line: "Name" or
// "(*Type).Name", or "" outside any.
func (s *source) funcAt(line int) string {
	for _, d := range s.file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		if s.fset.Position(fd.Pos()).Line <= line && line <= s.fset.Position(fd.End()).Line {
			if fd.Recv == nil || len(fd.Recv.List) == 0 {
				return fd.Name.Name
			}
			var b strings.Builder
			recv := fd.Recv.List[0].Type
			if st, ok := recv.(*ast.StarExpr); ok {
				b.WriteString("(*")
				writeType(&b, st.X)
				b.WriteString(")")
			} else {
				writeType(&b, recv)
			}
			return b.String() + "." + fd.Name.Name
		}
	}
	return ""
}

// writeType writes a receiver's type name, without type parameters.
func writeType(b *strings.Builder, e ast.Expr) {
	switch t := e.(type) {
	case *ast.Ident:
		b.WriteString(t.Name)
	case *ast.IndexExpr:
		writeType(b, t.X)
	case *ast.IndexListExpr:
		writeType(b, t.X)
	}
}
