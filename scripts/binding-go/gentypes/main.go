// Command gentypes writes the binding's Go type table (renderer/data/binding-types.*.json)
// by reflecting over the real Go types of the module it is built in: the pinned operator's
// module with its vendor tree, so k8s.io/api and k8s.io/apimachinery are the versions the
// operator builds with. Run it through scripts/gen-binding-go, which builds it there.
//
// For every struct reachable from the roots it lists the JSON fields in the order Go's
// encoding/json writes them, flattening embedded structs by the rules of encoding/json's
// typeFields (reimplemented here: the standard library does not export them).
package main

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"unicode"

	corev1 "k8s.io/api/core/v1"

	v1alpha1 "github.com/ai-dynamo/dynamo/deploy/operator/api/v1alpha1"
)

// The binding projection is not in the pinned operator (it lives on an unmerged branch of
// internal/checkpoint); its two structs are declared here with the field names, types and
// tags of that branch and reported under that package path.
const projectionPkg = "github.com/ai-dynamo/dynamo/deploy/operator/internal/checkpoint"

type automaticCheckpointCaptureInputs struct {
	Job              v1alpha1.DynamoCheckpointJobConfig `json:"job"`
	GPUMemoryService *v1alpha1.GPUMemoryServiceSpec     `json:"gpuMemoryService,omitempty"`
}

type automaticCheckpointBindingProjection struct {
	Name            string                           `json:"name"`
	Namespace       string                           `json:"namespace"`
	CheckpointID    string                           `json:"checkpointID"`
	AutomaticMarker string                           `json:"automaticMarker"`
	ArtifactVersion string                           `json:"artifactVersion"`
	ComponentName   string                           `json:"componentName"`
	WorkerHash      string                           `json:"workerHash"`
	CaptureInputs   automaticCheckpointCaptureInputs `json:"captureInputs"`
}

var roots = map[string]reflect.Type{
	"bindingProjection":  reflect.TypeFor[automaticCheckpointBindingProjection](),
	"captureInputs":      reflect.TypeFor[automaticCheckpointCaptureInputs](),
	"job":                reflect.TypeFor[v1alpha1.DynamoCheckpointJobConfig](),
	"gpuMemoryService":   reflect.TypeFor[v1alpha1.GPUMemoryServiceSpec](),
	"podTemplateSpec":    reflect.TypeFor[corev1.PodTemplateSpec](),
	"checkpoint":         reflect.TypeFor[v1alpha1.DynamoCheckpoint](),
	"checkpointSpec":     reflect.TypeFor[v1alpha1.DynamoCheckpointSpec](),
	"checkpointIdentity": reflect.TypeFor[v1alpha1.DynamoCheckpointIdentity](),
	"checkpointStatus":   reflect.TypeFor[v1alpha1.DynamoCheckpointStatus](),
}

// What each marshaler type's MarshalJSON writes, for readers of the table (prose, not
// derived: the encoder in renderer/binding implements these).
var encodings = map[string]string{
	"k8s.io/apimachinery/pkg/api/resource.Quantity":   "A JSON string: if parsing found the (whitespace-trimmed) input already in canonical form it is re-emitted verbatim (the fast path, e.g. 1e3, +1, 01, 5., 100M), otherwise the canonical form is emitted (e.g. 1000m->1, 0.5->500m, 2048Mi->2Gi, 1.5Gi->1536Mi, 1000->1k, 0.000->0); a zero Quantity encodes as \"0\" and, being a struct, is never dropped by omitempty.",
	"k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1":   "The raw JSON text that was decoded into it, re-emitted after encoding/json compacts it (no whitespace, <>& and U+2028/2029 escaped, member order kept as received), or null when empty.",
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time":       "JSON null when the time is zero, otherwise a string in RFC 3339 converted to UTC with whole seconds (fraction truncated), e.g. 2024-01-02T01:04:05Z; where tagged omitzero (ObjectMeta.creationTimestamp) a zero time is omitted instead.",
	"k8s.io/apimachinery/pkg/util/intstr.IntOrString": "A JSON number (int32) when it was decoded from a number and a JSON string when decoded from a string (8000 and \"8000\" differ); an absent value is the number 0.",
}

type desc struct {
	Kind      string `json:"kind"`
	Name      string `json:"name,omitempty"`
	Len       int    `json:"len,omitempty"`
	Key       *desc  `json:"key,omitempty"`
	Elem      *desc  `json:"elem,omitempty"`
	Marshaler string `json:"marshaler,omitempty"`
}

type field struct {
	JSON      string   `json:"json"`
	Go        string   `json:"go"`
	Via       []string `json:"via,omitempty"`
	OmitEmpty bool     `json:"omitempty"`
	OmitZero  bool     `json:"omitzero"`
	IsZero    string   `json:"iszero,omitempty"`
	String    bool     `json:"string"`
	Type      *desc    `json:"type"`
}

type structEntry struct {
	Fields  []field  `json:"fields"`
	Inlines []string `json:"inlines,omitempty"`
}

type special struct {
	Marshaler string `json:"marshaler"`
	Receiver  string `json:"receiver"`
	Kind      string `json:"kind"`
	Also      string `json:"also,omitempty"`
	IsZero    string `json:"iszero,omitempty"`
	Encoding  string `json:"encoding"`
}

type table struct {
	Source  map[string]string       `json:"source"`
	Roots   map[string]string       `json:"roots"`
	Types   map[string]*structEntry `json:"types"`
	Special map[string]*special     `json:"special"`
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	isZeroer      = reflect.TypeFor[interface{ IsZero() bool }]()
)

func typeName(t reflect.Type) string {
	if t.Name() == "" {
		return ""
	}
	if t.PkgPath() == "main" {
		return projectionPkg + "." + t.Name()
	}
	if t.PkgPath() == "" {
		return "" // predeclared: string, bool, ...
	}
	return t.PkgPath() + "." + t.Name()
}

// marshalerOf says which marshaler interface Go's encoder uses for t and on which receiver
// (encoding/json prefers json.Marshaler, then encoding.TextMarshaler).
func marshalerOf(t reflect.Type) (kind, receiver string) {
	for _, m := range []struct {
		iface reflect.Type
		name  string
	}{{jsonMarshaler, "json"}, {textMarshaler, "text"}} {
		if t.Implements(m.iface) {
			return m.name, "value"
		}
		if reflect.PointerTo(t).Implements(m.iface) {
			return m.name, "pointer"
		}
	}
	return "", ""
}

func isZeroOf(t reflect.Type) string {
	if t.Implements(isZeroer) {
		return "value"
	}
	if reflect.PointerTo(t).Implements(isZeroer) {
		return "pointer"
	}
	return "reflect"
}

type walker struct {
	types   map[string]*structEntry
	special map[string]*special
	queue   []reflect.Type
}

func (w *walker) describe(t reflect.Type) *desc {
	d := &desc{Kind: t.Kind().String(), Name: typeName(t)}
	// A pointer to a marshaler encodes as null or as its target: described as ptr -> elem.
	if kind, receiver := marshalerOf(t); kind != "" && t.Kind() != reflect.Pointer {
		d.Marshaler = kind
		w.addSpecial(t, kind, receiver)
		return d
	}
	switch t.Kind() {
	case reflect.Pointer:
		d.Kind = "ptr"
		d.Elem = w.describe(t.Elem())
	case reflect.Slice:
		d.Elem = w.describe(t.Elem())
	case reflect.Array:
		d.Len = t.Len()
		d.Elem = w.describe(t.Elem())
	case reflect.Map:
		d.Key = w.describe(t.Key())
		d.Elem = w.describe(t.Elem())
	case reflect.Struct:
		if _, seen := w.types[d.Name]; !seen {
			w.types[d.Name] = nil // reserved; filled when dequeued
			w.queue = append(w.queue, t)
		}
	case reflect.Interface, reflect.Func, reflect.Chan, reflect.UnsafePointer, reflect.Complex64, reflect.Complex128:
		fail("unsupported kind %s at %s", t.Kind(), t)
	}
	return d
}

func (w *walker) addSpecial(t reflect.Type, kind, receiver string) {
	name := typeName(t)
	if _, seen := w.special[name]; seen {
		return
	}
	text, ok := encodings[name]
	if !ok {
		fail("marshaler type %s has no encoding sentence: add one", name)
	}
	s := &special{Marshaler: kind, Receiver: receiver, Kind: t.Kind().String(), Encoding: text}
	if kind == "json" {
		if also, _ := marshalerOfText(t); also {
			s.Also = "text"
		}
	}
	if z := isZeroOf(t); z != "reflect" {
		s.IsZero = z
	}
	w.special[name] = s
}

func marshalerOfText(t reflect.Type) (bool, string) {
	if t.Implements(textMarshaler) {
		return true, "value"
	}
	if reflect.PointerTo(t).Implements(textMarshaler) {
		return true, "pointer"
	}
	return false, ""
}

// candidate is one field reached while flattening a struct, before dominance.
type candidate struct {
	name   string
	tagged bool
	index  []int
	via    []string
	f      reflect.StructField
	opts   []string
}

func isValidTag(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// flatten lists t's JSON fields as encoding/json does: breadth first through embedded
// structs without a JSON name, then the shallowest (and, among equals, the tagged) field
// wins each name, and the survivors are written in index order.
func (w *walker) flatten(t reflect.Type) ([]candidate, []string) {
	type level struct {
		typ   reflect.Type
		index []int
		via   []string
	}
	var out []candidate
	var inlines []string
	current := []level{}
	next := []level{{typ: t}}
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current, next = next, current[:0]
		var found []candidate
		for _, lv := range current {
			if visited[lv.typ] {
				continue
			}
			visited[lv.typ] = true
			for i := 0; i < lv.typ.NumField(); i++ {
				sf := lv.typ.Field(i)
				if sf.Anonymous {
					ft := sf.Type
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				parts := strings.Split(tag, ",")
				name := parts[0]
				if !isValidTag(name) {
					name = ""
				}
				index := append(slices.Clone(lv.index), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					jsonName := name
					if jsonName == "" {
						jsonName = sf.Name
					}
					found = append(found, candidate{
						name: jsonName, tagged: name != "", index: index,
						via: slices.Clone(lv.via), f: sf, opts: parts[1:],
					})
					continue
				}
				if sf.Type.Kind() == reflect.Pointer {
					fail("embedded pointer %s in %s is not supported by the encoder", sf.Name, t)
				}
				inlines = append(inlines, typeName(ft))
				next = append(next, level{typ: ft, index: index, via: append(slices.Clone(lv.via), sf.Name)})
			}
		}
		out = append(out, found...)
	}
	// dominance: per name keep the shallowest; among equals the tagged one; else none
	byName := map[string][]candidate{}
	for _, c := range out {
		byName[c.name] = append(byName[c.name], c)
	}
	var kept []candidate
	for _, cs := range byName {
		sort.SliceStable(cs, func(i, j int) bool {
			if len(cs[i].index) != len(cs[j].index) {
				return len(cs[i].index) < len(cs[j].index)
			}
			return cs[i].tagged && !cs[j].tagged
		})
		if len(cs) > 1 && len(cs[0].index) == len(cs[1].index) && cs[0].tagged == cs[1].tagged {
			fmt.Fprintf(os.Stderr, "note: %s: field %q is ambiguous and dropped\n", t, cs[0].name)
			continue
		}
		kept = append(kept, cs[0])
	}
	sort.Slice(kept, func(i, j int) bool { return slices.Compare(kept[i].index, kept[j].index) < 0 })
	return kept, inlines
}

func (w *walker) fill(t reflect.Type) {
	cands, inlines := w.flatten(t)
	entry := &structEntry{Inlines: inlines}
	for _, c := range cands {
		f := field{JSON: c.name, Go: c.f.Name, Via: c.via, Type: w.describe(c.f.Type)}
		for _, o := range c.opts {
			switch o {
			case "omitempty":
				f.OmitEmpty = true
			case "omitzero":
				f.OmitZero = true
			case "string":
				switch c.f.Type.Kind() {
				case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
					reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
					reflect.Float32, reflect.Float64, reflect.String:
					f.String = true
				}
			}
		}
		if f.OmitZero {
			f.IsZero = isZeroOf(c.f.Type)
		}
		entry.Fields = append(entry.Fields, f)
	}
	if entry.Fields == nil {
		entry.Fields = []field{}
	}
	w.types[typeName(t)] = entry
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "gentypes: "+format+"\n", args...)
	os.Exit(1)
}

func moduleVersion(path string) string {
	info, ok := debug.ReadBuildInfo()
	if ok {
		for _, dep := range info.Deps {
			if dep.Path == path {
				return dep.Version
			}
		}
	}
	fail("no build information for %s", path)
	return ""
}

func main() {
	w := &walker{types: map[string]*structEntry{}, special: map[string]*special{}}
	out := table{
		Source: map[string]string{
			"go":                  runtime.Version(),
			"k8s.io/api":          moduleVersion("k8s.io/api"),
			"k8s.io/apimachinery": moduleVersion("k8s.io/apimachinery"),
		},
		Roots:   map[string]string{},
		Types:   w.types,
		Special: w.special,
	}
	for role, t := range roots {
		out.Roots[role] = typeName(t)
		w.describe(t)
	}
	for len(w.queue) > 0 {
		t := w.queue[0]
		w.queue = w.queue[1:]
		w.fill(t)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(out); err != nil {
		fail("%v", err)
	}
	os.Stdout.Write(buf.Bytes())
}
