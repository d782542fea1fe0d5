package pkg

// Package doc code blocks name files the commands write:
//
//	go test -bench . | tee out.txt
