package sarif

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/internal/testneed"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaFile is the OASIS SARIF 2.1.0 schema (errata 01, the "id"
// https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json),
// copied unchanged from the schema constant of
// github.com/owenrumney/go-sarif/v3@v3.3.1/pkg/report/v210/sarif/schema.go;
// sha256 c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e.
const schemaFile = "testdata/sarif-schema-2.1.0.json"

// compileSchema loads the SARIF schema, asserting formats (uri,
// uri-reference, date-time) too.
func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sch, err := c.Compile(schemaFile)
	if err != nil {
		t.Fatalf("compiling %s: %v", schemaFile, err)
	}
	return sch
}

func validateSchema(t *testing.T, sch *jsonschema.Schema, out []byte) {
	t.Helper()
	if err := validate(sch, out); err != nil {
		t.Fatalf("output does not validate against %s: %v", schemaFile, err)
	}
}

func validate(sch *jsonschema.Schema, out []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

// logDoc is the part of a SARIF log the tests look at.
type logDoc struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name           string    `json:"name"`
				Version        string    `json:"version"`
				InformationURI string    `json:"informationUri"`
				Rules          []ruleDoc `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []resultDoc `json:"results"`
	} `json:"runs"`
}

type text struct {
	Text string `json:"text"`
}

type ruleDoc struct {
	ID               string `json:"id"`
	Name             string `json:"name"`
	ShortDescription text   `json:"shortDescription"`
	FullDescription  text   `json:"fullDescription"`
	Help             text   `json:"help"`
}

type resultDoc struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             text              `json:"message"`
	Locations           json.RawMessage   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
}

type locationDoc struct {
	PhysicalLocation struct {
		ArtifactLocation struct {
			URI string `json:"uri"`
		} `json:"artifactLocation"`
		Region *struct {
			StartLine int `json:"startLine"`
		} `json:"region"`
	} `json:"physicalLocation"`
}

func containsRegion(raw json.RawMessage) bool {
	var locs []locationDoc
	_ = json.Unmarshal(raw, &locs)
	for _, l := range locs {
		if l.PhysicalLocation.Region != nil {
			return true
		}
	}
	return false
}

// uriChars are RFC 3986's unreserved and reserved characters, less '?'
// and '#': a log path never has a query or fragment, so either one means
// a path character went unescaped. The schema's uri-reference format check
// (url.Parse) lets spaces through, hence this one.
var uriChars = regexp.MustCompile(`^([A-Za-z0-9\-._~:/\[\]@!$&'()*+,;=]|%[0-9A-F]{2})+$`)

func strictURI(u string) bool {
	return uriChars.MatchString(u)
}

// wantNames are check.md 8.1's rule names, in order.
var wantNames = []string{
	"CallError", "InvalidFrame", "ProtocolWarning", "RoutingMismatch", "PendingCall", "LateResult",
	"ToolDefinitionDrift", "DeprecatedFeature", "IncompleteCapture", "SchemaFinding", "AssertionFailure", "ReportTruncated",
}

// checkInvariants checks what every log must satisfy, beyond the schema,
// for code scanning to take it, and returns the parsed log.
func checkInvariants(t *testing.T, out []byte) *logDoc {
	t.Helper()
	if !bytes.HasSuffix(out, []byte("}\n")) || bytes.HasSuffix(out, []byte("\n\n")) {
		t.Errorf("output does not end in exactly one newline")
	}
	if bytes.Contains(out, []byte("null")) {
		t.Errorf("output contains null")
	}
	if !bytes.Contains(out, []byte(`"results": [`)) {
		t.Errorf("output has no results array")
	}
	var doc logDoc
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != SchemaURI || doc.Version != "2.1.0" || len(doc.Runs) != 1 {
		t.Fatalf("$schema %q, version %q, %d runs", doc.Schema, doc.Version, len(doc.Runs))
	}
	d := doc.Runs[0].Tool.Driver
	if d.Name != "mcpsnoop" || d.InformationURI != "https://github.com/mcpsnoop/mcpsnoop" || d.Version == "" {
		t.Errorf("driver = %q %q %q", d.Name, d.Version, d.InformationURI)
	}
	if len(d.Rules) != len(wantNames) {
		t.Fatalf("%d rules, want %d", len(d.Rules), len(wantNames))
	}
	for i, r := range d.Rules {
		if r.Name != wantNames[i] || r.ID != rules[i].id {
			t.Errorf("rule %d = %s %s, want %s %s", i, r.ID, r.Name, rules[i].id, wantNames[i])
		}
		if r.ShortDescription.Text == "" || r.FullDescription.Text == "" || r.Help.Text == "" {
			t.Errorf("rule %s has an empty text", r.ID)
		}
		if len(r.ShortDescription.Text) > 1024 || len(r.FullDescription.Text) > 1024 {
			t.Errorf("rule %s has a description over 1,024 characters", r.ID)
		}
	}
	res := doc.Runs[0].Results
	if len(res) > MaxResults {
		t.Errorf("%d results, more than %d", len(res), MaxResults)
	}
	for i, r := range res {
		if r.RuleIndex < 0 || r.RuleIndex >= len(d.Rules) || d.Rules[r.RuleIndex].ID != r.RuleID {
			t.Fatalf("result %d: ruleIndex %d does not name %s", i, r.RuleIndex, r.RuleID)
		}
		if r.Locations == nil {
			continue
		}
		var locs []locationDoc
		if err := json.Unmarshal(r.Locations, &locs); err != nil || len(locs) != 1 {
			t.Fatalf("result %d: locations %s, want exactly one", i, r.Locations)
		}
		l := locs[0].PhysicalLocation
		if u := l.ArtifactLocation.URI; !strictURI(u) {
			t.Errorf("result %d: uri %q is empty or not RFC 3986", i, u)
		}
		if l.Region != nil && l.Region.StartLine < 1 {
			t.Errorf("result %d: startLine %d", i, l.Region.StartLine)
		}
	}
	return &doc
}

// runMultitool validates out with Microsoft's SARIF multitool, including
// the GitHub code-scanning rules (GH*), when SARIF_MULTITOOL names its
// binary, e.g.
//
//	cd /tmp && npm install @microsoft/sarif-multitool-linux
//	SARIF_MULTITOOL=/tmp/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool go test ./sarif/
//
// The tool exits 0 even when it reports errors, so its output is read: a
// line with ": error " fails the test unless its rule is in allowed.
func runMultitool(t *testing.T, name string, out []byte, allowed []string) {
	t.Helper()
	tool := os.Getenv("SARIF_MULTITOOL")
	file := filepath.Join(t.TempDir(), name+".sarif")
	if err := os.WriteFile(file, out, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(tool, "validate", "--rule-kind", "Sarif;Gh", file)
	cmd.Env = append(os.Environ(), "DOTNET_CLI_TELEMETRY_OPTOUT=1")
	report, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s validate: %v\n%s", tool, err, report)
	}
	for _, line := range strings.Split(string(report), "\n") {
		if !strings.Contains(line, ": error ") {
			continue
		}
		if slices.Contains(allowed, multitoolRule(line)) {
			t.Logf("multitool (allowed): %s", line)
			continue
		}
		t.Errorf("multitool: %s", line)
	}
}

// multitoolRule is the rule id in "FILE(l,c): error GH1015: ...".
func multitoolRule(line string) string {
	_, rest, _ := strings.Cut(line, ": error ")
	id, _, _ := strings.Cut(rest, ":")
	return id
}

// TestMultitool runs the multitool over every golden case's output (the
// full output: the cap's golden file holds an excerpt only).
func TestMultitool(t *testing.T) {
	if os.Getenv("SARIF_MULTITOOL") == "" {
		testneed.Missing(t, "set SARIF_MULTITOOL to the Sarif.Multitool binary to validate the golden outputs with it")
	}
	for _, tc := range goldenCases() {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, tc.rep, tc.opts); err != nil {
				t.Fatal(err)
			}
			runMultitool(t, tc.name, buf.Bytes(), tc.allowed)
		})
	}
}
