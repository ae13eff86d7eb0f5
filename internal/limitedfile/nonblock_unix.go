//go:build unix

package limitedfile

import "syscall"

const nonBlock = syscall.O_NONBLOCK
