//go:build !unix

package limitedfile

const nonBlock = 0
