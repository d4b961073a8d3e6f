package replay

// The engines these tests make need the schema validator linked, as the
// mcpsnoop binary links it.
import _ "github.com/mcpsnoop/mcpsnoop/checker/wire/schemacheck"
