// Command hello prints its greeting, which -ldflags may set.
package main

import "fmt"

var greeting = "hello"

func main() { fmt.Println(greeting) }
