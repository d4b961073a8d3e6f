package baseline

import (
	"os"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
)

// TestRecordLosesToExistingFile pins the race's losing side without racing:
// a first-seen write that finds the name taken leaves the winner's file
// alone, reports created=false and cleans up its temporary file.
func TestRecordLosesToExistingFile(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	winner := []tooldef.Tool{{Name: "a", Description: "winner", InputSchema: []byte("null")}}
	loser := []tooldef.Tool{{Name: "a", Description: "loser", InputSchema: []byte("null")}}
	created, err := s.record("srv", "", winner)
	if err != nil || !created {
		t.Fatalf("first record = %v, %v; want created", created, err)
	}
	want, _ := os.ReadFile(s.Path("srv"))
	created, err = s.record("srv", "", loser)
	if err != nil || created {
		t.Fatalf("second record = %v, %v; want not created, no error", created, err)
	}
	if got, _ := os.ReadFile(s.Path("srv")); string(got) != string(want) {
		t.Errorf("the winner's file was replaced:\n%s", got)
	}
	entries, _ := os.ReadDir(s.Dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the baseline", len(entries))
	}
}
