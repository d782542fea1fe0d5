package server_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/examples/internal/server"
	"github.com/blitz-go/blitz/examples/internal/work"
)

// Start a server that runs each request's work on a blitz pool, at most 64
// requests in flight, call it once and shut it down.
func ExampleStart() {
	h, err := work.New(4096)
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := server.Start(server.Config{
		Mode: server.Blitz, Addr: "127.0.0.1:0", Capacity: 64, Parking: blitz.ParkingPortable, Work: h.Do,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	tr := &http.Transport{}
	resp, err := (&http.Client{Transport: tr}).Get("http://" + s.Addr() + "/work")
	if err != nil {
		fmt.Println(err)
	} else {
		resp.Body.Close()
		fmt.Println(resp.Status)
	}
	tr.CloseIdleConnections()
	fmt.Println(s.Shutdown(context.Background()))
	// Output:
	// 200 OK
	// <nil>
}
