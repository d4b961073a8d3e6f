// Command broken does not compile: the test of a failed build builds it.
package main

func main() { undefinedName() }
