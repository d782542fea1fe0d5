package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/klauspost/cpuid/v2"
)

// Machine describes where a report was measured: figures from different
// machines are not comparable, so every report and results file starts with
// this.
type Machine struct {
	NumCPU     int    // logical CPUs the OS reports (nproc's count before affinity)
	GOMAXPROCS int    // at the start of the run
	CPUModel   string // /proc/cpuinfo "model name", else cpuid's brand string
	Hypervisor string // hypervisor vendor (KVM, ...), empty on bare metal
	GoVersion  string
	GOOS       string
	GOARCH     string
}

// DetectMachine reads the machine description.
func DetectMachine() Machine {
	m := Machine{
		NumCPU:     runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		GoVersion:  runtime.Version(),
		GOOS:       runtime.GOOS,
		GOARCH:     runtime.GOARCH,
	}
	model, hyper := cpuinfo("/proc/cpuinfo")
	m.CPUModel = model
	if m.CPUModel == "" {
		m.CPUModel = strings.TrimSpace(cpuid.CPU.BrandName)
	}
	if m.CPUModel == "" {
		m.CPUModel = "unknown"
	}
	if cpuid.CPU.HypervisorVendorID != cpuid.VendorUnknown {
		m.Hypervisor = cpuid.CPU.HypervisorVendorID.String()
	} else if v := strings.TrimSpace(strings.Trim(cpuid.CPU.HypervisorVendorString, "\x00")); v != "" {
		m.Hypervisor = v
	} else if hyper {
		m.Hypervisor = "yes (vendor unknown)"
	}
	return m
}

// cpuinfo returns the first "model name" of a /proc/cpuinfo-style file and
// whether its flags include "hypervisor". A missing file gives "", false.
func cpuinfo(path string) (model string, hypervisor bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch key {
		case "model name":
			if model == "" {
				model = val
			}
		case "flags":
			for _, f := range strings.Fields(val) {
				if f == "hypervisor" {
					hypervisor = true
				}
			}
		}
	}
	return model, hypervisor
}

// String is the one-line description printed at the top of a report.
func (m Machine) String() string {
	virt := "bare metal or undetected hypervisor"
	if m.Hypervisor != "" {
		virt = "hypervisor " + m.Hypervisor
	}
	return fmt.Sprintf("%s/%s, %d CPUs (GOMAXPROCS=%d), %s, %s, %s",
		m.GOOS, m.GOARCH, m.NumCPU, m.GOMAXPROCS, m.CPUModel, virt, m.GoVersion)
}
