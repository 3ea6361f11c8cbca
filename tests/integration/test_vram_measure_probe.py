"""``vram --measure`` for real: the probe in a torch venv, against real saved-tensor counting on the CPU.

The torch environment is tests/torch_env.py's (``GSW_TEST_TORCH_PYTHON`` names an existing one;
else torch 2.13 is installed into a venv, or the test is skipped saying why). The model is a
student's file (``make(batch)`` returns the model and its inputs); the real count is the tests'
worker's ``saved_bytes`` (tests/vram_measure_worker.py, storages by data pointer) on real tensors.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli_runner import run_cli

REPO = Path(__file__).resolve().parents[2]
WORKER = REPO / "tests" / "vram_measure_worker.py"

MODEL = '''
import torch
from torch import nn


class SmallNet(nn.Module):
    """A student's CIFAR-sized CNN: conv-BN-ReLU twice, a pool, a linear head."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
                                  nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
                                  nn.AdaptiveAvgPool2d(4))
        self.head = nn.Linear(64 * 16, 10)

    def forward(self, x):
        return self.head(torch.flatten(self.body(x), 1))


def make(batch):
    return SmallNet(), (torch.randn(batch, 3, 32, 32),)


class ReadsValues(SmallNet):
    def forward(self, x):
        if x.abs().max().item() > 1e6:  # a value: meta tensors have none
            x = x / 2
        return super().forward(x)


def make_reads_values(batch):
    return ReadsValues(), (torch.randn(batch, 3, 32, 32),)


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(16, 32, batch_first=True)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        return self.fc(self.lstm(x)[0][:, -1])


def make_lstm(batch):
    return Tagger(), (torch.randn(batch, 20, 16),)
'''

REAL = '''
import importlib.util, json, sys
import torch
spec = importlib.util.spec_from_file_location("worker", sys.argv[1]); worker = importlib.util.module_from_spec(spec)
spec.loader.exec_module(worker)
spec = importlib.util.spec_from_file_location("student", sys.argv[2]); student = importlib.util.module_from_spec(spec)
spec.loader.exec_module(student)
model, (x,) = student.make(int(sys.argv[3]))
model.train()
labels = torch.zeros(x.shape[0], dtype=torch.long)
print(json.dumps(worker.saved_bytes(model, lambda: torch.nn.functional.cross_entropy(model(x), labels))))
'''


@pytest.fixture(scope="module")
def model_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("학생 모델") / "my_model.py"
    path.write_text(MODEL, encoding="utf-8")
    return path


@pytest.mark.parametrize("batch", [2, 16])
def test_measured_on_meta_matches_real_counting_on_the_cpu(torch_python, model_file, batch):
    out = run_cli("vram", "--measure", f"{model_file}:make", "--python", str(torch_python), "--batch", str(batch),
                  "--vram-gb", "4", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["basis"] == "measured" and doc["params"] == 3 * 32 * 9 + 32 + 64 + 32 * 64 * 9 + 64 + 128 + 1024 * 10 + 10
    real = subprocess.run([str(torch_python), "-c", REAL, str(WORKER), str(model_file), str(batch)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert real.returncode == 0, real.stderr
    saved = json.loads(real.stdout)
    assert abs(doc["activations_bytes"] / saved - 1) < 0.10, (doc["activations_bytes"], saved)
    assert doc["weights_bytes"] == doc["gradients_bytes"] == 4 * doc["params"]
    assert doc["optimizer_bytes"] == 8 * doc["params"]
    assert doc["largest_batch"] > batch and doc["fits"] is True


def test_sgd_keeps_no_state_and_the_text_says_what_fits(torch_python, model_file):
    out = run_cli("vram", "--measure", f"{model_file}:make", "--python", str(torch_python), "--optimizer", "sgd",
                  "--vram-gb", "4", "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["optimizer_bytes"] == 0, out.stderr
    text = run_cli("--lang", "en", "vram", "--measure", f"{model_file}:make", "--python", str(torch_python),
                   "--vram-gb", "4")
    assert text.returncode == 0, text.stderr
    assert "Measured from the model itself" in text.stdout and "Largest batch that fits on" in text.stdout


def test_a_model_that_cannot_run_on_meta_falls_back_to_the_estimate(torch_python, model_file):
    out = run_cli("vram", "--measure", f"{model_file}:make_reads_values", "--python", str(torch_python), "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["basis"] == "estimate" and doc["reason_id"] == "meta-failed"
    assert "item" in doc["reason"] and "\n" not in doc["reason"]
    assert doc["params"] > 0 and doc["activations_bytes"] == 0
    text = run_cli("vram", "--measure", f"{model_file}:make_reads_values", "--python", str(torch_python))
    assert "ESTIMATE, not measured" in text.stdout and "Traceback" not in text.stdout + text.stderr


def test_a_missing_function_is_one_line(torch_python, model_file):
    out = run_cli("vram", "--measure", f"{model_file}:nope", "--python", str(torch_python))
    assert out.returncode == 1 and "nope" in out.stdout and "Traceback" not in out.stdout + out.stderr


def test_recurrent_layers_leave_room_for_cudnns_own_reserve(torch_python, model_file):
    """Meta runs an LSTM's generic kernels; the GPU's cuDNN reserve is unknown there: the answer says so."""
    lstm = run_cli("--lang", "en", "vram", "--measure", f"{model_file}:make_lstm", "--python", str(torch_python),
                   "--vram-gb", "4")
    assert lstm.returncode == 0, lstm.stderr
    assert "recurrent layers (LSTM/GRU/RNN)" in lstm.stdout
    cnn = run_cli("--lang", "en", "vram", "--measure", f"{model_file}:make", "--python", str(torch_python),
                  "--vram-gb", "4")
    assert cnn.returncode == 0 and "recurrent layers" not in cnn.stdout
