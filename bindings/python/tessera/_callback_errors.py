"""Python exceptions raised inside a callback the C library called (a
custom Function's forward or backward): the callback keeps the exception
here and returns a failure status instead of letting it unwind through C;
the Python call that entered the library (Function.apply, Tensor.backward,
autograd.grad) then raises this exception, with its own traceback, in
place of the library's error. Per thread, as the library's calls are."""
import threading

_state = threading.local()


def keep(error):
    """Records error as the pending one of this thread (the first wins:
    the one closest to the cause)."""
    if getattr(_state, "error", None) is None:
        _state.error = error


def clear():
    _state.error = None


def take():
    """The pending exception (and forgets it), or None."""
    error = getattr(_state, "error", None)
    _state.error = None
    return error


def reraise(library_error):
    """Raises the pending exception in place of library_error when there is
    one, else library_error itself."""
    error = take()
    if error is not None:
        raise error.with_traceback(error.__traceback__) from None
    raise library_error
