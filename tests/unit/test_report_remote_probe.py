"""The Colab cell's result (``gpu-setup-wizard/remote-probe@1.0``) as the add-remote reader
takes it: recorded probe events become a remote machine; a document of the wrong shape is
refused with a message, never a traceback."""

from __future__ import annotations

import ast
import json

import pytest

from tests.remote_results import remote_probe_doc
from wizard.core.report.colab_cell import PROBE_FILES, colab_cell
from wizard.core.report.remote import RemoteInputError, machine_from_text


def test_a_remote_probe_result_becomes_a_machine():
    m = machine_from_text(json.dumps(remote_probe_doc()), label="gpu-setup-result.json")
    assert (m.kind, m.source, m.label) == ("colab", "remote-probe", "gpu-setup-result.json")
    assert m.torch_version == "2.8.0+cu128" and m.torch_cuda == "12.8" and m.cuda_available is True
    assert m.driver_version == "570.133.07" and m.gpus[0]["name"] == "NVIDIA GeForce RTX 3060"
    assert m.cpu_s and m.gpu_s and m.speedup and m.speedup > 1


def test_without_nvidia_smi_the_gpus_come_from_what_torch_saw():
    m = machine_from_text(json.dumps(remote_probe_doc(nvidia_smi=None, nvidia_smi_error="nvidia-smi not found")), "cloud")
    assert m.kind == "cloud" and m.gpus and m.gpus[0]["name"] == "NVIDIA GeForce RTX 3060"
    assert m.gpus[0]["compute_capability"] == "8.6"


@pytest.mark.parametrize("bad", [{"verify": None}, {"verify": {"events": "x"}}, {"verify": {"events": [1]}},
                                 {"schema": "gpu-setup-wizard/remote-probe@2.0"}])
def test_a_wrong_document_is_refused_with_a_message(bad):
    with pytest.raises(RemoteInputError) as caught:
        machine_from_text(json.dumps(remote_probe_doc(**bad)))
    assert caught.value.text("ko") and caught.value.text("en")


@pytest.mark.parametrize("form", ["colab", "ssh"])
def test_the_cell_is_python_38_source_carrying_every_probe_file(form):
    text = colab_cell(form)
    tree = ast.parse(text, feature_version=(3, 8))
    files = next(n.value for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "FILES")
    assert [k.value for k in files.keys] == list(PROBE_FILES)
    assert "pip install" not in text
