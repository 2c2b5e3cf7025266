"""Device buffers and one timed pass of the live TensorRT runtime (TensorRT 10 name-based I/O).

Inputs get random data at the given (profile opt) shapes, seeded, by the one rule of every runtime
(`runtimes/random_inputs.py`); outputs are sized from the context once every input shape is set. A pass is: H2D
copies, `execute_async_v3` and a stream sync, D2H copies, each timed on the host with the copies synchronous, so the
three add up to the pass. With copies hidden, inputs are copied once
before the passes and outputs are never fetched (seed: "Hide Non-Compute Operations").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from dld_jupyter.activities.errors import RunFailed, SpecError
from dld_jupyter.activities.runtimes.base import PassTimes
from dld_jupyter.activities.runtimes.random_inputs import input_seed, random_array


class Bindings:
    def __init__(self, trt: Any, engine: Any, context: Any, shapes: dict[str, tuple[int, ...]], seed: int) -> None:
        from polygraphy import cuda

        self.stream = cuda.Stream()
        self.inputs: list[tuple[Any, Any]] = []  # (host array, DeviceArray)
        self.outputs: list[tuple[Any, Any]] = []
        self.output_names: list[str] = []
        names = [engine.get_tensor_name(i) for i in range(engine.num_io_tensors)]
        is_input = {name: engine.get_tensor_mode(name) == trt.TensorIOMode.INPUT for name in names}
        for position, name in enumerate(n for n in names if is_input[n]):
            shape = shapes.get(name) or tuple(engine.get_tensor_shape(name))
            if any(d < 0 for d in shape):
                raise SpecError(f"model: input {name} has dynamic shape {list(shape)} and no optimization profile")
            context.set_input_shape(name, shape)
            dtype = trt.nptype(engine.get_tensor_dtype(name))
            host = random_array(name, shape, dtype, input_seed(seed, position), "profile the ONNX model instead")
            self._bind(context, name, host, cuda, self.inputs)
            self.inputs[-1][1].copy_from(host, self.stream)
        for name in (n for n in names if not is_input[n]):
            host = np.empty(tuple(context.get_tensor_shape(name)), dtype=trt.nptype(engine.get_tensor_dtype(name)))
            self._bind(context, name, host, cuda, self.outputs)
            self.output_names.append(name)
        self.stream.synchronize()

    @staticmethod
    def _bind(context: Any, name: str, host: Any, cuda: Any, into: list[tuple[Any, Any]]) -> None:
        device = cuda.DeviceArray(shape=host.shape, dtype=host.dtype)
        context.set_tensor_address(name, device.ptr)
        into.append((host, device))

    def free(self) -> None:
        for _, device in (*self.inputs, *self.outputs):
            device.free()
        self.stream.free()


def timed_pass(
    bindings: Bindings,
    context: Any,
    copies: bool,
    take_layers: Callable[[], list[tuple[str, float]]] | None,
    clock: Callable[[], float],
) -> PassTimes:
    """One pass: H2D copies (when `copies`), execute and sync, D2H copies, each part timed with `clock`."""
    stream = bindings.stream
    start = clock()
    if copies:
        for host, device in bindings.inputs:
            device.copy_from(host, stream)
        stream.synchronize()
    copied = clock()
    if not context.execute_async_v3(stream.ptr):
        raise RunFailed("TensorRT inference failed (execute_async_v3 returned False; see the log)")
    stream.synchronize()
    computed = clock()
    if copies:
        for host, device in bindings.outputs:
            device.copy_to(host, stream)
        stream.synchronize()
    end = clock()
    layers = take_layers() if take_layers is not None else []
    return PassTimes((end - start) * 1e3, layers, (copied - start) * 1e3, (end - computed) * 1e3, start)
