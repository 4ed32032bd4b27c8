/*
 * whole_writes.so - preloaded into animd by test_whole_writes: libuv's
 * uv_try_write returns only once all its bytes are taken, as a socket
 * with a large enough buffer, or a reader fast enough, makes it.  The
 * daemon then never has a write left queued, so whatever its flow control
 * waits for must not be the completion of a queued write.  (libuv writes
 * with raw system calls, so the shim sits on its entry point instead.)
 */
#include <dlfcn.h>
#include <poll.h>
#include <string.h>
#include <uv.h>

#define WHOLE_MAX_BUFS 64

int uv_try_write(uv_stream_t *handle, const uv_buf_t bufs[], unsigned int nbufs);

int uv_try_write(uv_stream_t *handle, const uv_buf_t bufs[], unsigned int nbufs)
{
	static int (*real)(uv_stream_t *, const uv_buf_t[], unsigned int);
	uv_buf_t left[WHOLE_MAX_BUFS];
	unsigned first = 0;
	int done = 0;
	uv_os_fd_t fd;

	if (real == NULL)
		real = (int (*)(uv_stream_t *, const uv_buf_t[], unsigned int))dlsym(RTLD_NEXT,
										     "uv_try_write");
	if (nbufs > WHOLE_MAX_BUFS || uv_fileno((uv_handle_t *)handle, &fd) != 0)
		return real(handle, bufs, nbufs);
	memcpy(left, bufs, nbufs * sizeof *bufs);
	while (first < nbufs) {
		int r = real(handle, left + first, nbufs - first);

		if (r == UV_EAGAIN) {
			struct pollfd p = { .fd = fd, .events = POLLOUT };

			poll(&p, 1, -1);
			continue;
		}
		if (r < 0)
			return done > 0 ? done : r;
		done += r;
		while (first < nbufs && (size_t)r >= left[first].len)
			r -= (int)left[first++].len;
		if (first < nbufs) {
			left[first].base += r;
			left[first].len -= (size_t)r;
		}
	}
	return done;
}
