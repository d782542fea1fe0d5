package topology

import (
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/cpuid/v2"
	"github.com/stretchr/testify/assert"
)

func TestParseCPUInfo(t *testing.T) {
	text := []byte("processor\t: 0\nmodel name\t: AMD EPYC 7B13\nflags\t\t: fpu sse2 hypervisor avx2\n\n" +
		"processor\t: 1\nmodel name\t: other\nflags\t\t: fpu\n")
	model, virt := parseCPUInfo(text, "amd64")
	assert.Equal(t, "AMD EPYC 7B13", model)
	assert.True(t, virt)

	model, virt = parseCPUInfo(text, "arm64")
	assert.Empty(t, model, "an x86 cpuinfo (an emulator's host) says nothing about an arm64 CPU")
	assert.False(t, virt)

	arm := []byte("processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd atomics\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n")
	model, virt = parseCPUInfo(arm, "arm64")
	assert.Equal(t, "CPU implementer 0x41 part 0xd0c", model)
	assert.False(t, virt)
	model, _ = parseCPUInfo(arm, "amd64")
	assert.Empty(t, model)
}

func TestHypervisorName(t *testing.T) {
	assert.Equal(t, "", hypervisorName(cpuid.CPUInfo{}, false))
	assert.Equal(t, "unknown", hypervisorName(cpuid.CPUInfo{}, true))
	assert.Equal(t, "KVM", hypervisorName(cpuid.CPUInfo{HypervisorVendorID: cpuid.KVM}, false))
	assert.Equal(t, "ACRNACRNACRN", hypervisorName(cpuid.CPUInfo{HypervisorVendorString: "ACRNACRNACRN\x00"}, true))
}

func TestHostIdentityDescribesTheSystem(t *testing.T) {
	id := HostIdentity()
	assert.Equal(t, runtime.GOARCH, id.Arch)
	assert.True(t, strings.HasPrefix(id.Kernel, runtime.GOOS), "Kernel %q must start with GOOS", id.Kernel)
	if id.Brand != "" {
		assert.NotEmpty(t, id.ModelName, "a brand name is the model name's fallback")
	}
}
