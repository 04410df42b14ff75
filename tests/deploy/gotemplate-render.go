// SPDX-License-Identifier: Apache-2.0
// tests/deploy/helm.sh: the chart's templates rendered by Go's own text/template (the engine
// Helm runs), standard library only, with the functions the chart uses defined as Helm's
// do; toYaml writes JSON (which is YAML), so the test compares parsed objects.
//
//	go run gotemplate-render.go TEMPLATES_DIR CONTEXT.json > out.yaml
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"
)

func indent(n int, s string) string {
	pad := strings.Repeat(" ", n)
	return pad + strings.ReplaceAll(s, "\n", "\n"+pad)
}

func truthy(v interface{}) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case float64:
		return x != 0
	case []interface{}:
		return len(x) > 0
	case map[string]interface{}:
		return len(x) > 0
	}
	return true
}

func main() {
	dir, ctxFile := os.Args[1], os.Args[2]
	raw, err := os.ReadFile(ctxFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var ctx map[string]interface{}
	if err := json.Unmarshal(raw, &ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	t := template.New("chart").Option("missingkey=error")
	t.Funcs(template.FuncMap{
		"toYaml": func(v interface{}) (string, error) {
			b, err := json.MarshalIndent(v, "", "  ")
			return string(b), err
		},
		"nindent": func(n int, s string) string { return "\n" + indent(n, s) },
		"indent":  indent,
		"quote":   func(v interface{}) string { return fmt.Sprintf("%q", fmt.Sprint(v)) },
		"default": func(d, v interface{}) interface{} {
			if truthy(v) {
				return v
			}
			return d
		},
		"sha256sum": func(s string) string {
			h := sha256.Sum256([]byte(s))
			return hex.EncodeToString(h[:])
		},
		"include": func(name string, data interface{}) (string, error) {
			var b bytes.Buffer
			err := t.ExecuteTemplate(&b, name, data)
			return b.String(), err
		},
	})
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	sort.Strings(files)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err == nil {
			_, err = t.New(filepath.Base(f)).Parse(string(src))
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	for _, f := range files {
		name := filepath.Base(f)
		if strings.HasPrefix(name, "_") {
			continue
		}
		var b bytes.Buffer
		if err := t.ExecuteTemplate(&b, name, ctx); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("---\n%s\n", b.String())
	}
}
