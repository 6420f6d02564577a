"""What one fuzzing process does: generate a program and check it in every
configuration, or shrink a failing one. Each process imports PyTorch once
(`init`) and works in its own temp dir."""
import atexit
import itertools
import os
import shutil
import tempfile
import zlib

import gen
import runner
import shrink

_state = {}
_dirs = itertools.count()


def init(stitch, timeout):
    import torch
    torch.set_num_threads(1)
    tmp = tempfile.mkdtemp(prefix="stitch-fuzz-")
    atexit.register(shutil.rmtree, tmp, True)
    _state.update(stitch=stitch, timeout=timeout, tmp=tmp)


def make_case(campaign_seed, index):
    """Program `index` of the campaign with seed `campaign_seed`, with its
    inputs: the same seed always gives the same programs and values."""
    key = "%s:%d" % (campaign_seed, index)
    program = gen.generate(key)
    return {"id": index, "src": program.src, "fn": program.fn, "specs": program.inputs,
            "inputs": runner.make_inputs(program.inputs, zlib.crc32(key.encode()))}


def relative_command(fn, inputs, config):
    """The command line as it runs inside a saved failure's directory."""
    cmd = runner.stitch_command("stitch", "program.py", fn, inputs, "in.npz",
                                "out-%s.npz" % config[0], config[1])
    return " ".join(cmd)


def evaluate(src, fn, inputs, configs):
    """(runner.Reference, [runner.Run]) for src; raises runner.Invalid when
    PyTorch rejects it. Inputs the program has no parameter for are left out."""
    params = shrink.parameters(src, fn)
    inputs = {k: v for k, v in inputs.items() if k in params}
    workdir = os.path.join(_state["tmp"], "p%d" % next(_dirs))
    os.makedirs(workdir)
    try:
        prog = os.path.join(workdir, "program.py")
        with open(prog, "w") as f:
            f.write(src)
        reference = runner.torch_reference(prog, fn, inputs)
        runner.write_inputs(inputs, os.path.join(workdir, "in.npz"))
        runs = []
        for config in configs:
            run = runner.run_stitch(_state["stitch"], prog, fn, inputs, workdir, config,
                                    reference, _state["timeout"])
            run.cmd = relative_command(fn, inputs, config)
            out_npz = os.path.join(workdir, "out-%s.npz" % config[0])
            run.outputs = runner.read_outputs(out_npz) if os.path.exists(out_npz) else None
            runs.append(run)
        return reference, runs
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def check(campaign_seed, index):
    """Generates program `index` and runs it everywhere. Returns the case
    with `status` (valid / invalid), and for valid ones `reference` and `runs`."""
    case = make_case(campaign_seed, index)
    try:
        case["reference"], case["runs"] = evaluate(case["src"], case["fn"], case["inputs"],
                                                  runner.CONFIGS)
        case["status"] = "valid"
    except runner.Invalid as e:
        case["status"], case["reason"] = "invalid", str(e)
    return case


def shrink_case(case, config_name, target, seconds):
    """Shrinks case's program while `config_name` still fails with signature
    `target`; returns the case for the smallest program found, checked again
    in every configuration."""
    config = next(c for c in runner.CONFIGS if c[0] == config_name)
    fn, inputs = case["fn"], case["inputs"]

    def still_fails(src):
        try:
            _, runs = evaluate(src, fn, inputs, [config])
        except runner.Invalid:
            return False
        except SyntaxError:
            return False
        return runs[0].signature() == target

    small = shrink.shrink(case["src"], still_fails, seconds)
    trimmed = shrink.drop_unused_parameters(small, fn)
    if trimmed != small and still_fails(trimmed):
        small = trimmed
    result = dict(case, src=small, original=case["src"])
    result["inputs"] = {k: v for k, v in inputs.items() if k in shrink.parameters(small, fn)}
    try:
        result["reference"], result["runs"] = evaluate(small, fn, result["inputs"], runner.CONFIGS)
    except runner.Invalid as e:  # cannot happen unless PyTorch is not deterministic
        return dict(case, shrink_error=str(e))
    return result
