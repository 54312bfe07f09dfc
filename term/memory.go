package term

// Memory is what terminals share to keep their memory cheap: a pool of
// emulators made ahead of need and reused (pool.go, docs/emulator-release.md),
// and the watch that returns the memory a burst of output leaves to the
// system once output is quiet (idlefree.go, docs/limits.md, "Memory handed
// back"). Both are on in a new Memory. A process has one heap, so it
// normally has one Memory: the one SharedMemory returns, which
// Config.Memory nil stands for. Safe for concurrent use.
type Memory struct {
	pool emuPool
	idle idleWatch
}

// NewMemory returns a Memory with the pool and the idle return on.
func NewMemory() *Memory { return &Memory{} }

// shared is the Memory of terminals whose Config.Memory is nil; the
// pointer never changes.
var shared = NewMemory()

// SharedMemory returns the process's Memory, the one terminals made with a
// nil Config.Memory use.
func SharedMemory() *Memory { return shared }

// orShared returns m, or the shared Memory when m is nil.
func (m *Memory) orShared() *Memory {
	if m == nil {
		return shared
	}
	return m
}

// SetPool turns the emulator pool on (the default) or off (each terminal
// makes its emulator when it needs one and drops it after), for
// measurements that compare the two.
func (m *Memory) SetPool(on bool) {
	m.pool.mu.Lock()
	defer m.pool.mu.Unlock()
	m.pool.off = !on
}

// SetIdleFree turns returning memory after a burst of output on (the
// default) or off, for measurements that compare the two.
func (m *Memory) SetIdleFree(on bool) {
	m.idle.mu.Lock()
	defer m.idle.mu.Unlock()
	m.idle.off = !on
	m.idle.active.Store(false) // the next output arms the watch
}

// NoteWork tells the idle watch that the process did work that leaves
// garbage other than output (a snapshot save, say), so that the memory it
// leaves is returned once the process is quiet. Cheap; safe for concurrent
// use.
func (m *Memory) NoteWork() { m.idle.noteOutput() }
