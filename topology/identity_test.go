package topology

import (
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParseCPUInfo(t *testing.T) {
	text := []byte("processor\t: 0\nmodel name\t: AMD EPYC 7B13\nflags\t\t: fpu sse2 hypervisor avx2\n\n" +
		"processor\t: 1\nmodel name\t: other\nflags\t\t: fpu\n")
	ci := parseCPUInfo(text, "amd64")
	assert.Equal(t, cpuInfo{model: "AMD EPYC 7B13", hypervisor: true}, ci)

	ci = parseCPUInfo(text, "arm64")
	assert.Equal(t, cpuInfo{}, ci, "an x86 cpuinfo (an emulator's host) says nothing about an arm64 CPU")

	arm := []byte("processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd atomics\nCPU implementer\t: 0x41\n" +
		"CPU architecture: 8\nCPU variant\t: 0x1\nCPU part\t: 0xd0c\nCPU revision\t: 3\n\n" +
		"processor\t: 1\nCPU implementer\t: 0x61\nCPU part\t: 0x022\n")
	ci = parseCPUInfo(arm, "arm64")
	assert.Equal(t, cpuInfo{model: "CPU implementer 0x41 part 0xd0c", implementer: "0x41", variant: "0x1", part: "0xd0c", revision: "3"}, ci)
	assert.Equal(t, cpuInfo{}, parseCPUInfo(arm, "amd64"))

	assert.Equal(t, [3]int{1, 0xd0c, 3}, [3]int{cpuinfoInt(ci.variant), cpuinfoInt(ci.part), cpuinfoInt(ci.revision)})
	assert.Zero(t, cpuinfoInt("none"))
	assert.Equal(t, "Arm Limited", armImplementer("0x41"))
	assert.Equal(t, "Apple Inc", armImplementer("0x61"))
	assert.Equal(t, "0x99", armImplementer("0x99"), "an unknown implementer keeps its code")
}

func TestHypervisorName(t *testing.T) {
	assert.Equal(t, "", hypervisorName("", false))
	assert.Equal(t, "unknown", hypervisorName("", true))
	assert.Equal(t, "KVM", hypervisorName("KVMKVMKVM", false))
	assert.Equal(t, "Hyper-V", hypervisorName("Microsoft Hv", true))
	assert.Equal(t, "ACRN", hypervisorName("ACRNACRNACRN", true))
	assert.Equal(t, "SomeHV", hypervisorName("SomeHV", true), "an unknown vendor string is its own name")
}

func TestHostIdentityDescribesTheSystem(t *testing.T) {
	id := HostIdentity()
	assert.Equal(t, runtime.GOARCH, id.Arch)
	assert.True(t, strings.HasPrefix(id.Kernel, runtime.GOOS), "Kernel %q must start with GOOS", id.Kernel)
	if id.Brand != "" {
		assert.NotEmpty(t, id.ModelName, "a brand name is the model name's fallback")
	}
}
