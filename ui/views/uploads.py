"""What each uploader of the dashboard accepts, and why, as text shown beside it (not only on hover): one
``UploadLimit`` per uploader. Streamlit's browser code checks a widget's ``max_upload_size`` in MB of 10⁶ bytes
(of 2²⁰ on Windows), its server checks ``server.maxUploadSize`` in MB of 2²⁰ bytes (.streamlit/config.toml: the
largest widget's figure, so the server never refuses what a widget took; a test checks it); the app checks the
exact byte limit again, in one line."""
from __future__ import annotations

from dataclasses import dataclass

from engine.errors import InputError
from engine.llm.config import MAX_CONFIG_BYTES
from engine.scenario import MAX_SCENARIO_BYTES

MB = 1_000_000
"""The megabyte of the limits (the browser's, outside Windows)."""


@dataclass(frozen=True)
class UploadLimit:
    """At most ``max_bytes`` per file, for ``reason`` (one sentence, shown beside the uploader)."""

    max_bytes: int
    reason: str

    @property
    def mb(self) -> int:
        """The widget's cap in MB, rounded up (the app checks the exact bytes)."""
        return -(-self.max_bytes // MB)

    def size_text(self) -> str:
        return f"{self.max_bytes / MB:,.3g} MB"

    def text(self) -> str:
        """'Files up to 100 MB: the graph is read …' — the line beside the uploader."""
        return f"Files up to {self.size_text()}: {self.reason}"

    def check(self, size: int, field: str = "upload") -> None:
        """One line when a file is larger than the limit (the widget lets a file of up to ``mb`` through)."""
        if size > self.max_bytes:
            raise InputError(field, f"{size:,} bytes: larger than the {self.size_text()} this uploader takes")


ONNX = UploadLimit(110 * MB, "only the graph is read, the weights inside are skipped, so a model exported with its "
                             "weights fits (torch.onnx.export writes ResNet-18 as 47 MB; ResNet-50's weights are "
                             "102 MB). Larger: save the weights as external data and upload the .onnx alone, or run "
                             "python -m engine flops --onnx FILE")
SCENARIO = UploadLimit(MAX_SCENARIO_BYTES, "a scenario file downloaded from FLOPscope is a few kB; a layer list of "
                                           "the dashboard's 2,000 layers fits")
CONFIG = UploadLimit(MAX_CONFIG_BYTES, "a Hugging Face config.json is a few kB (the largest of the 260 in the model "
                                       "library, MiniMax-Text-01's, is 3 kB)")
EPOCH_CSV = UploadLimit(20 * MB, "Epoch AI's CSV downloads are a few MB (“Notable AI Models”: 1.7 MB in April 2025)")
UPLOADS = {"onnx": ONNX, "scenario": SCENARIO, "config": CONFIG, "epoch_csv": EPOCH_CSV}
"""Every uploader's limit (the server's cap is the largest)."""
