"""Nothing reachable (issue 26, part 4): the private Dask cluster of
`experiment run --backend dask` speaks mutual TLS with a temporary certificate (a client
without it cannot connect), starts no HTTP server (distributed starts one on port 8787
even with dashboard_address=None), and its scratch folder is removed when SIGTERM stops
the run. Real processes: the cluster's workers and a signal are what is tested.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")

ROOT = Path(__file__).resolve().parent.parent
SPEC = """
[experiment]
name = "reach"
mode = "test_recovery"
root_seed = 3
chunk_size = 100
games = 4000
"""


def listening(pids: list[int]) -> list[tuple[int, str, int]]:
    out = []
    for pid in pids:
        try:
            for c in psutil.Process(pid).net_connections(kind="inet"):
                if c.status == psutil.CONN_LISTEN:
                    out.append((pid, c.laddr.ip, c.laddr.port))
        except psutil.NoSuchProcess:
            pass
    return out


def http_answers(port: int) -> bool:
    """A plain HTTP request gets an HTTP answer (a web server listens on the port)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
            s.sendall(b"GET / HTTP/1.0\r\nHost: x\r\n\r\n")
            s.settimeout(2)
            return s.recv(16).startswith(b"HTTP/")
    except OSError:
        return False


def test_private_cluster_is_tls_only_and_serves_no_http(tmp_path):
    from distributed import Client

    from simkit.runner.fanout import private_cluster

    with private_cluster(1) as cluster, Client(cluster) as client:
        addr = cluster.scheduler_address
        assert addr.startswith(("tls://", "inproc://")), addr
        info = client.scheduler_info()
        assert info.get("services", {}) == {}
        assert all(w.startswith(("tls://", "inproc://")) for w in info["workers"])
        me = psutil.Process()
        pids = [me.pid] + [p.pid for p in me.children(recursive=True)]
        ports = listening(pids)
        assert all(ip == "127.0.0.1" for _, ip, _ in ports), ports
        assert 8787 not in {p for _, _, p in ports}
        assert not [p for _, _, p in ports if http_answers(p)]
        if addr.startswith("tls://"):
            # another local user has no certificate: no connection (plain TCP or TLS)
            with pytest.raises((OSError, TimeoutError)):
                Client(addr.replace("tls://", "tcp://"), timeout=3)
            # nor with a certificate of its own: the cluster trusts only its temporary one
            import tempfile

            from simkit.runner.fanout import _temporary_security

            with tempfile.TemporaryDirectory() as other:
                theirs = _temporary_security(Path(other))
                with pytest.raises((OSError, TimeoutError)):
                    Client(addr, timeout=3, security=theirs)
            assert client.submit(int, "7").result() == 7


def test_sigterm_removes_the_scratch_folder_and_ends_with_143(tmp_path):
    spec = tmp_path / "reach.toml"
    spec.write_text(SPEC)
    scratch_root = tmp_path / "tmp"
    scratch_root.mkdir()
    env = {
        **os.environ,
        "CI": "1",
        "TMPDIR": str(scratch_root),
        "SIMKIT_MODE_PROVIDERS": "fake_modes",
        "SIMKIT_FAKE_SLEEP": "0.3",
        "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), str(ROOT)]),
    }
    out = tmp_path / "lake"
    proc = subprocess.Popen(
        [sys.executable, "-m", "simkit", "experiment", "run", str(spec), "--out", str(out)]
        + ["--backend", "dask", "--jobs", "1", "--quiet"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not list(out.glob("summary/**/chunk-*.parquet")):
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.2)
    scratch = [p for p in scratch_root.iterdir() if p.name.startswith("simkit-dask-")]
    assert scratch, list(scratch_root.iterdir())
    workers = psutil.Process(proc.pid).children(recursive=True)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    err = err.decode()
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert proc.returncode == 143, err
    assert len(lines) == 1 and "terminated" in lines[0] and "Traceback" not in err, err
    assert not [p for p in scratch if p.exists()]
    gone, alive = psutil.wait_procs(workers, timeout=15)
    for p in alive:
        p.kill()
    assert not alive
    from simkit.lake import Manifest

    rec = next(iter(Manifest.load(out).experiments.values()))
    assert rec["status"] == "interrupted"
    assert not [p for p in out.rglob("*") if ".tmp" in p.name]


def test_a_security_file_gives_the_client_its_certificates(tmp_path):
    """--scheduler plus --security FILE (YAML of distributed Security options; paths relative
    to the file) is how a real cluster is reached; --security alone is refused."""
    from simkit.errors import UserError
    from simkit.runner.fanout import Fanout, _security_from_file, _temporary_security

    made = _temporary_security(tmp_path)
    if made is None:
        pytest.skip("neither cryptography nor openssl: no certificate to point at")
    conf = tmp_path / "tls.yaml"
    conf.write_text(
        "tls_ca_file: tls-cert.pem\ntls_client_cert: tls-cert.pem\n"
        "tls_client_key: tls-key.pem\nrequire_encryption: true\n"
    )
    sec = _security_from_file(str(conf))
    assert sec.require_encryption and sec.tls_client_cert == str(tmp_path / "tls-cert.pem")
    with pytest.raises(UserError, match="--security is for a cluster of your own"):
        Fanout(1, "dask", None, str(conf))
    (tmp_path / "bad.yaml").write_text("tls_nonsense: 1\n")
    with pytest.raises(UserError, match="--security"):
        _security_from_file(str(tmp_path / "bad.yaml"))


SECOND_USER = r"""
import os, sys, threading
from pathlib import Path
addr, scratch = sys.argv[1], Path(sys.argv[2])
from distributed import Client
print("uid", os.getuid(), flush=True)
try:
    os.listdir(scratch)
    print("scratch: readable")
except PermissionError:
    print("scratch: refused")

def attempt(tried, said, security):
    try:
        Client(tried, timeout=3, security=security).close()
        said.append("connected")
    except Exception as exc:  # any failure to connect counts: the test looks at "connected"
        said.append(f"refused {type(exc).__name__}")

from distributed.security import Security
tries = [("tls, own certificate", addr, Security.temporary()), ("tls, none", addr, None)]
tries.append(("tcp", addr.replace("tls://", "tcp://"), None))
for name, tried, security in tries:
    said = []
    t = threading.Thread(target=attempt, args=(tried, said, security), daemon=True)
    t.start()
    t.join(20)  # a plain-TCP hello to a TLS server can wait for an answer that never comes
    print(name, said[0] if said else "refused (no answer in 20 s)", flush=True)
os._exit(0)  # a failed Client may leave its event-loop thread behind
"""


@pytest.mark.slow  # a second process under another account, with distributed's import
@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to run as nobody"
)
def test_another_local_account_can_neither_connect_nor_read_the_key():
    """The attack of issue 26 as it was: another unprivileged account on the machine (uid
    65534) tries the private cluster's scheduler, with plain TCP and with TLS, and tries to
    read the scratch folder that holds the temporary key."""
    from distributed import Client

    from simkit.runner.fanout import private_cluster

    with private_cluster(1) as cluster, Client(cluster) as client:
        addr = cluster.scheduler_address
        if addr.startswith("inproc://"):
            pytest.skip("no certificate tool: the cluster is in-process (nothing listens)")
        assert addr.startswith("tls://"), addr
        scratch = next(
            Path(d) for d in client.run(lambda dask_worker: dask_worker.local_directory).values()
        )
        key_folder = scratch.parent if scratch.name.startswith("dask-scratch") else scratch
        while not key_folder.name.startswith("simkit-dask-") and key_folder != key_folder.parent:
            key_folder = key_folder.parent
        assert key_folder.name.startswith("simkit-dask-"), scratch

        def as_nobody():
            os.setgid(65534)
            os.setuid(65534)

        # the venv's interpreter may live in a folder only root can enter (pyenv under
        # /root): then the system's Python of the same version, with the venv's packages
        import site
        import sysconfig

        packages = os.pathsep.join(site.getsitepackages() + [sysconfig.get_paths()["purelib"]])
        version = f"python{sys.version_info.major}.{sys.version_info.minor}"
        done = None
        for python in (sys.executable, f"/usr/bin/{version}"):
            try:
                done = subprocess.run(
                    [python, "-u", "-c", SECOND_USER, addr, str(key_folder)],
                    preexec_fn=as_nobody,
                    capture_output=True,
                    text=True,
                    timeout=120,
                    cwd="/",
                    env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "PYTHONPATH": packages},
                )
                break
            except (PermissionError, FileNotFoundError):
                continue
        if done is None:
            pytest.skip("no Python the account nobody may run")
        out = done.stdout
        if "uid 65534" not in out:
            pytest.skip(f"cannot run Python as nobody here: {done.stderr.strip()[-200:]}")
        assert "scratch: refused" in out, out
        assert "connected" not in out, out
        assert out.count("refused") == 4, out + done.stderr[-2000:]
        assert client.submit(int, "7").result() == 7  # the owner still can
