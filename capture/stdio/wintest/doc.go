// Package wintest runs mcpsnoop's Windows build under wine (-tags e2e): a
// session through the shim, the shim killed with the server's whole tree
// ending with it, a client that dies, batch files given hostile
// arguments, the state folder, and wrap/unwrap of a config whose paths
// hold spaces. The programs are cross-compiled for Windows; testdata holds
// the test server (winserver) and the source of a stand-in
// bcryptprimitives.dll that wine 8.0 lacks and Go's runtime needs (built
// with mingw-w64 for the test prefix only, never shipped).
package wintest
