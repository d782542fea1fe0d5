package blitz

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestJobRefLayout(t *testing.T) {
	r := frameRef(0xBEEF, 0xDEADBEEF)
	assert.Equal(t, uint64(0x0000BEEF_DEADBEEF), uint64(r), "frameRef")
	assert.Equal(t, uint64(kindFrame), r.kind())
	assert.Equal(t, 0xBEEF, r.worker())
	assert.Equal(t, uint32(0xDEADBEEF), r.index())

	s := spawnRef(0xBEEF, 0xFFFFFFFF)
	assert.Equal(t, uint64(1<<62|0xBEEF<<32|0xFFFFFFFF), uint64(s), "spawnRef")
	assert.Equal(t, uint64(kindSpawn), s.kind())
	assert.Equal(t, 0xBEEF, s.worker())
	assert.Equal(t, uint32(0xFFFFFFFF), s.index())

	assert.Equal(t, uint64(kindTask), taskRef.kind())
	assert.Equal(t, uint64(2<<62), uint64(taskRef), "taskRef")

	assert.NotEqual(t, frameRef(1, 0), spawnRef(1, 0), "frame and spawn refs collide")
	assert.NotEqual(t, frameRef(0, 5), spawnRef(0, 5), "frame and spawn refs collide")
	assert.NotEqual(t, frameRef(0, 0), taskRef, "frame and task refs collide")
	assert.NotEqual(t, spawnRef(0, 0), taskRef, "spawn and task refs collide")
}
