// Package supervise is the stdio shim's supervisor on Unix: the shim's own
// program, started again in a hidden mode, that starts the server in its
// process group and ends the whole group when the shim is gone (see
// capture/stdio's supervisor_unix.go for why). Importing it is what makes
// a program able to supervise: the mode is chosen when the package is
// initialised.
//
// It is a package of its own, importing only the standard library's
// os, os/signal and syscall and what they import, so that Go initialises
// it among the first packages of the program: a supervisor exits from
// here before the inits of the libraries the rest of the program links
// (JSON schema compilers, terminal UIs, protocol buffers) run, and holds
// only the few pages of the binary that the runtime and this code touch.
// Keep it so: a heavier import here moves it later in the init order and
// costs every session a supervisor's worth of memory and start-up.
// TestSupervisorInitsFirst pins it.
package supervise
