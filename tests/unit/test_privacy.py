from wizard.core.base.privacy import Redactor, redactor_for


def test_hangul_home_user_host_and_uuid_are_hidden():
    r = redactor_for(r"C:\Users\김철수", {"USERNAME": "김철수"}, "KIM-LAPTOP")
    doc = {
        "path": r"C:\Users\김철수\AppData\Local\Programs\Python\Python311\python.exe",
        "posix": "C:/Users/김철수/envs/dl",
        "note": "김철수 ran this on KIM-LAPTOP",
        "gpus": [{"uuid": "GPU-1c9d7d6e-7f0a-2d0c-8e6a-0b6d2c1c9a11", "serial": "1324020012345",
                  "name": "NVIDIA GeForce RTX 4060 Laptop GPU"}],
        "raw": "GPU 0: X (UUID: GPU-1c9d7d6e-7f0a-2d0c-8e6a-0b6d2c1c9a11)",
        "hostname": "KIM-LAPTOP",
    }
    out = repr(r.redact(doc))
    for secret in ("김철수", "KIM-LAPTOP", "1c9d7d6e", "1324020012345"):
        assert secret not in out, secret
    red = r.redact(doc)
    assert red["path"].startswith("~")
    assert red["gpus"][0]["name"] == "NVIDIA GeForce RTX 4060 Laptop GPU"


def test_user_name_inside_other_words_is_kept():
    r = Redactor(user="kim")
    assert r.redact_text("kimchi kim") == "kimchi <user>"


def test_root_is_not_treated_as_a_name():
    # a container's root user whose home is elsewhere (Jupyter images): the home goes, the word stays
    r = redactor_for("/srv/jupyter", {"USER": "root"}, None)
    assert r.redact_text("/srv/jupyter/envs and the root cause") == "~/envs and the root cause"


def test_short_host_name_does_not_eat_words():
    r = Redactor(hostname="vm")
    doc = r.redact({"id": "nvml-no-permission", "text": "nvml on vm: vm.local", "hostname": "vm"})
    assert doc["id"] == "nvml-no-permission"
    assert doc["text"] == "nvml on <host>: <host>.local"
    assert doc["hostname"] == "<host>"
