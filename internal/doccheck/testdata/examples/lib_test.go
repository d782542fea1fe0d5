package lib_test

import "fmt"

func Example()          { fmt.Println() }
func Example_note()     { fmt.Println() }
func ExampleF()         { fmt.Println() }
func ExampleT()         { fmt.Println() }
func ExampleT_M()       { fmt.Println() }
func ExampleT_M_again() { fmt.Println() }
func ExampleT_cond()    { fmt.Println() }

// Unattached: a function of another package, a constant, a method T lacks.
func ExampleFor()    { fmt.Println() }
func ExampleC()      { fmt.Println() }
func ExampleT_Nope() { fmt.Println() }
