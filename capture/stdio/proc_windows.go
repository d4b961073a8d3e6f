package stdio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"syscall"
	"unsafe"

	"github.com/mcpsnoop/mcpsnoop/internal/wincmd"
	"golang.org/x/sys/windows"
)

// On Windows the server's tree is a job object: the server starts
// suspended, joins a job that kills every process in it when its last
// handle closes (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE), and only then runs,
// so that nothing it starts (npx.cmd starts node, which starts the real
// server) escapes the job. The shim alone holds the job's handle: when the
// shim ends, however it ends (TerminateProcess, a crash, the end of the
// session), Windows closes the handle and ends the whole tree.

// killedStatus is the exit status a server the shim ended gets: Windows
// has no signals, TerminateProcess sets a status, and 1 is the usual one.
const killedStatus = 1

// serverTree is the started server and the job that holds it and what it
// starts. job is 0 when the server could not be put in one (see note).
type serverTree struct {
	p       *os.Process
	job     windows.Handle
	jobNote string
}

// startServer resolves argv's command as cmd.exe would (PATHEXT), starts
// it suspended with the given stdio, puts it in a new job and resumes it.
func startServer(argv []string, stdin, stdout, stderr *os.File, exited chan struct{}) (*exec.Cmd, *serverTree, error) {
	cmd, err := serverCommand(argv)
	if err != nil {
		return nil, nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_SUSPENDED
	job, jobErr := newKillOnCloseJob()
	if err := startLocked(cmd, exited); err != nil {
		closeJob(job)
		return nil, nil, err
	}
	tree := &serverTree{p: cmd.Process, job: job}
	if jobErr == nil {
		jobErr = assignToJob(job, cmd.Process.Pid)
	}
	if jobErr != nil {
		closeJob(job)
		tree.job = 0
		tree.jobNote = fmt.Sprintf("mcpsnoop: warning: the server runs outside a job object (%v): should mcpsnoop be killed, the server and what it started may keep running", jobErr)
	}
	if err := resumeProcess(uint32(cmd.Process.Pid)); err != nil {
		_ = tree.kill()
		<-exited
		tree.release()
		return nil, nil, fmt.Errorf("the server started suspended and could not be resumed: %w", err)
	}
	return cmd, tree, nil
}

// serverCommand is how argv runs: the command found through PATH and
// PATHEXT; a batch file (npx.cmd, a .bat) through cmd.exe on a command
// line that escapes every argument against cmd's metacharacters.
func serverCommand(argv []string) (*exec.Cmd, error) {
	path, err := wincmd.Lookup(argv[0], os.Getenv("PATH"), os.Getenv("PATHEXT"), isFile)
	if errors.Is(err, wincmd.ErrNotFound) {
		return nil, fmt.Errorf("%w (%v)", exec.ErrNotFound, err)
	} else if err != nil {
		return nil, err
	}
	if !wincmd.IsBatch(path) {
		cmd := exec.Command(path, argv[1:]...)
		cmd.SysProcAttr = &syscall.SysProcAttr{}
		return cmd, nil
	}
	sys, err := windows.GetSystemDirectory()
	if err != nil {
		return nil, err
	}
	cmdExe := sys + `\cmd.exe`
	line, err := wincmd.BatchCommandLine(cmdExe, path, argv[1:])
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(cmdExe)
	cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: line}
	return cmd, nil
}

// isFile reports whether a regular file is at path (a folder named
// npx.cmd does not run).
func isFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}

// startCode is the status a start error gets: 127 when the server is not
// found, 126 otherwise, as shells do.
func startCode(err error) int {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		return 127
	}
	return 126
}

// newKillOnCloseJob creates a job that ends its processes when its last
// handle is closed. Its handle is not inherited: the shim holds the only
// one.
func newKillOnCloseJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("CreateJobObject: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{
			LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
		},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("SetInformationJobObject: %w", err)
	}
	return job, nil
}

func closeJob(job windows.Handle) {
	if job != 0 {
		windows.CloseHandle(job)
	}
}

// assignToJob puts process pid (the shim's child, still suspended, whose
// id cannot be reused while os/exec holds its handle) in job.
func assignToJob(job windows.Handle, pid int) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return fmt.Errorf("OpenProcess: %w", err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		return fmt.Errorf("AssignProcessToJobObject: %w", err)
	}
	return nil
}

// resumeProcess resumes the threads of process pid, which was created
// suspended: os/exec closes the main thread's handle, so the thread is
// found in a snapshot of the system's threads.
func resumeProcess(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("CreateToolhelp32Snapshot: %w", err)
	}
	defer windows.CloseHandle(snap)
	entry := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &entry); err == nil; err = windows.Thread32Next(snap, &entry) {
		if entry.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, entry.ThreadID)
		if err != nil {
			return fmt.Errorf("OpenThread: %w", err)
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("ResumeThread: %w", err)
		}
		resumed++
	}
	if resumed == 0 {
		return errors.New("no thread of the server was found")
	}
	return nil
}

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type jobAccounting struct {
	TotalUserTime             int64
	TotalKernelTime           int64
	ThisPeriodTotalUserTime   int64
	ThisPeriodTotalKernelTime int64
	TotalPageFaultCount       uint32
	TotalProcesses            uint32
	ActiveProcesses           uint32
	TotalTerminatedProcesses  uint32
}

// alive reports whether any process is left in the server's job (the
// server, or what it started).
func (t *serverTree) alive() bool {
	if t.job == 0 {
		return false
	}
	var info jobAccounting
	err := windows.QueryInformationJobObject(t.job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil)
	return err == nil && info.ActiveProcesses > 0
}

// signal ends the tree for SIGTERM and SIGHUP, which Windows cannot send
// (its only stop is TerminateProcess). An interrupt (Ctrl-C, Ctrl-Break)
// is not repeated: the server shares the shim's console and has had the
// console's event itself; it has the kill grace to act on it.
func (t *serverTree) signal(sig os.Signal) error {
	if sig == os.Interrupt {
		return nil
	}
	return t.kill()
}

// kill ends every process of the job, or the server alone without one.
func (t *serverTree) kill() error {
	if t.job != 0 {
		return windows.TerminateJobObject(t.job, killedStatus)
	}
	return t.p.Kill()
}

// release closes the job's handle: what is left of the tree ends.
func (t *serverTree) release() {
	closeJob(t.job)
	t.job = 0
}

func (t *serverTree) note() string { return t.jobNote }

// parentProcess is the process that started the shim, held open from the
// shim's start: Windows keeps a process's parent id after the parent has
// exited (and may give the id to another process), so its end is seen on
// a handle to it instead.
type parentProcess struct {
	pid int
	h   windows.Handle // 0: cannot be watched
	// goneAtStart: the id names no process, or one started after the
	// shim: the parent had already exited.
	goneAtStart bool
}

// openParent opens the shim's parent, pid ppid.
func openParent(ppid int) *parentProcess {
	p := &parentProcess{pid: ppid}
	if ppid <= 0 {
		return p
	}
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(ppid))
	if err != nil {
		// No such process: the parent is gone already. Any other error
		// (access denied: an elevated parent) leaves it unwatched.
		p.goneAtStart = errors.Is(err, windows.ERROR_INVALID_PARAMETER)
		return p
	}
	parentStart, ok1 := handleStart(h)
	ownStart, ok2 := handleStart(windows.CurrentProcess())
	if ok1 && ok2 && parentStart.After(ownStart) {
		windows.CloseHandle(h)
		p.goneAtStart = true // the id was given to a later process
		return p
	}
	p.h = h
	return p
}

// gone reports whether the parent has exited.
func (p *parentProcess) gone() bool {
	if p.goneAtStart {
		return true
	}
	if p.h == 0 {
		return false
	}
	ev, err := windows.WaitForSingleObject(p.h, 0)
	return err == nil && ev == windows.WAIT_OBJECT_0
}

func (p *parentProcess) close() {
	if p.h != 0 {
		windows.CloseHandle(p.h)
		p.h = 0
	}
}
