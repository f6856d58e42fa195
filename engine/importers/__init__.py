"""Models brought in from elsewhere, counted into rows of the ``counted`` kind (``engine.method1.counted``):
an ONNX graph (``onnx_graph``, its operators' costs in ``onnx_ops``) and a PyTorch module (``torch_count``)."""
