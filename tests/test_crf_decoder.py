"""The reference parser's CRF made faster, the same labels: its features and its C decoder.

The features are computed per distinct token and cached (``_crf.Featurizer``); the labels come
from ``citejudge._native.crf_viterbi`` over the model's weights (``_weights.read_weights``)
instead of CRFsuite's tagger. Both must give exactly what they replaced: the features are held
to a digest taken from the first implementation (before the speed-up of issue 27, item 3) on
the strings below, and the decoder to CRFsuite's labels, on these strings, on random tokens and
on the real strings of ``../shared/data`` the parser benchmarks read.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citejudge import native
from citejudge.readers.freetext import _crf, _weights

# Real shapes (books with translators, numbered and glued entries, GOST, guillemets, repeated-
# author dashes, glued years, doubled dots, Chinese [J], a URL, a semicolon title), typed here.
STRINGS = [
    "Bloom, Harold. The Anxiety of Influence: A Theory of Poetry (New York: Oxford University Press, 1973).",
    "Foucault, Michel. Discipline and Punish: The Birth of the Prison, trans. Alan Sheridan (New York: Vintage Books, 1977).",
    "[57] B. A. Olshausen, D. J. Field. Sparse coding with an overcomplete basis set. 1997.",
    "1.Ioffe S, Szegedy C. Batch normalization: accelerating deep network training by reducing internal covariate shift. Proc Mach Learn Res. 2015;37:448-456.",
    "Vaswani, A., Shazeer, N., Parmar, N., et al. (2017). “Attention is all you need.” In Advances in Neural Information Processing Systems 30 (pp. 5998–6008).",
    "He K, Zhang X, Ren S, Sun J. Deep residual learning for image recognition. In: Proceedings of the IEEE CVPR; 2016. p. 770–8. doi:10.1109/CVPR.2016.90",
    "Hochreiter S., Schmidhuber J. Long short-term memory // Neural Computation. — 1997. — Vol. 9, № 8. — P. 1735–1780.",
    "LeCun, Y., Bengio, Y. & Hinton, G. Deep learning. Nature 521, 436–444 (2015). https://doi.org/10.1038/nature14539",
    "———. Of Grammatology. Baltimore: Johns Hopkins University Press, 1976.",
    "Dupont, G., et K. Martin. «Le titre de l'article.» Revue française de sociologie 34 (2012): 12-45.",
    "Smith J (ed.) (2001) Handbook of Things, 2nd edn. Springer, Berlin, pp xii+345",
    "Müller, H.-J.; Schäfer, Ö. Über die Theorie der Dinge. Zeitschrift für Physik, Bd. 12, H. 3, S. 45-67, 1931.",
    "Kingma DP, Ba J. Adam: A method for stochastic optimization. arXiv preprint arXiv:1412.6980. 2014 Dec 22.",
    "Goodfellow, I. J., Pouget-Abadie, J., Mirza, M., Xu, B., Warde-Farley, D., Ozair, S., Courville, A., and Bengio, Y. Generative adversarial nets. In NIPS, 2014.",
    "R. Sutton and A. Barto, Reinforcement Learning: An Introduction, 2nd ed. Cambridge, MA, USA: MIT Press, 2018, ISBN 978-0-262-03924-6.",
    "Blaschko2023“Improving Differentially Private SGD” (Zhu, J. y M.B.), In: ICML XL, pp. iv–ix",
    "Pletnev, S.. Monomeric red fluorescent protein. Nat. Biotechnol. 22(12):1567–1572, Dec. 2004",
    "WANG Lei, LI Hua. A study of reading [J]. Journal of Chinese Information Processing, 2019, 33(4): 1-10.",
    "Okech, B. A.2019 The Spread of things. Unpublished doctoral dissertation, University of Nairobi.",
    "Anon. (n.d.). Retrieved March 3, 2020, from http://www.example.org/page.html",
    "Rossi, M. (a cura di) (1998), Storia d'Italia, vol. II, Torino: Einaudi.",
    '"Quoted title only" (2010) [Online]. Available: www.site.com/x.pdf; accessed 12 Jan. 2011.',
    "O'Neil C. Weapons of math destruction; or, How big data increases inequality and threatens democracy. Crown, 2016.",
    "Tanaka, T., 2003. Kaplan-Meier estimates. J. Am. Stat. Assoc. 98 (461), 123–134.",
    "12Smith, A. (1999b), ‘A note’, Economics Letters 65(3), 1–4; and (2001) ‘Another’.",
    "Ivanov I. I., Petrov P. P. Нейронные сети: учебник. — М.: Наука, 2005. — 320 с.",
]

# A small hand-made lexicon: the digests depend on the feature definitions alone, not on the
# lists a retrained model ships.
WORDS = {
    "given": frozenset({"harold", "michel", "alan", "jane"}),
    "family": frozenset({"smith", "bengio", "hinton", "lecun"}),
    "place": frozenset({"berlin", "baltimore", "torino", "cambridge"}),
    "publisher": frozenset({"springer", "einaudi", "crown"}),
    "venue": frozenset({"nature", "neural", "economics", "journal"}),
}
# sha256 of the features of STRINGS as the first implementation gave them (str features joined
# by NUL, a token ended by \x01): every feature, then every feature but each third one by name
FIRST_DIGESTS = (
    "e0f99f3427a9e633e0ed1b8f7946834e279c3f06106115a70608db64a44227fb",
    "da77b6ed04fac36f20f3f8474a50ace2f0940d95ac47a1427dd73f57cb1b7605",
)


def _digest(featurizer: _crf.Featurizer) -> str:
    h = hashlib.sha256()
    for s in STRINGS:
        for f in featurizer.sequence_features(_crf.tokenize(s)):
            h.update(b"\x00".join(f) + b"\x01")
    return h.hexdigest()


def test_features_are_those_of_the_first_implementation() -> None:
    full = _crf.Featurizer(_crf.Lexicon(**WORDS))
    names = sorted(
        {x for s in STRINGS for f in full.sequence_features(_crf.tokenize(s)) for x in f}
    )
    assert len(names) > 1500
    keep = frozenset(n.decode() for k, n in enumerate(names) if k % 3)
    kept = _crf.Featurizer(_crf.Lexicon(**WORDS, active=keep))
    # the second time from the per-token cache: the same again
    assert (_digest(full), _digest(kept)) == FIRST_DIGESTS
    assert (_digest(full), _digest(kept)) == FIRST_DIGESTS


needs_native = pytest.mark.skipif(native.load() is None, reason="citejudge._native is not built")


def _both(tokens: list[str]) -> tuple[list[str], list[str]]:
    """CRFsuite's labels for the joined features and the C decoder's for their parts."""
    featurizer = _crf.load_model().featurizer
    feats = featurizer.sequence_features(tokens)
    decoder = _crf._decoder()
    assert decoder is not None
    viterbi, w = decoder
    ours = [
        w.labels[y] for y in viterbi(featurizer.sequence_parts(tokens), w.attrs, w.state, w.trans)
    ]
    # the joined features give the same
    assert viterbi(feats, w.attrs, w.state, w.trans) == [w.labels.index(y) for y in ours]
    return list(_crf._tagger().tag(feats)), ours


@needs_native
def test_c_decoder_gives_crfsuites_labels() -> None:
    for s in STRINGS:
        ours, theirs = _both(_crf.tokenize(s))
        assert ours == theirs, s
    # and tag_tokens takes it
    tokens = _crf.tokenize(STRINGS[0])
    assert _crf.tag_tokens(tokens) == _both(tokens)[0]


@needs_native
@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(
                ["Smith,", "J.", "(2019).", "In", "Nature", "12(3),", "pp.", "1-10.", "“A", "b”"]
            ),
            # any characters, NUL included (CRFsuite reads a feature up to its first NUL)
            st.text(st.characters(blacklist_categories=("Zs", "Cs")), min_size=1, max_size=8),
        ),
        min_size=1,
        max_size=40,
    )
)
def test_c_decoder_gives_crfsuites_labels_on_any_tokens(tokens: list[str]) -> None:
    tokens = [t for t in (x.strip() for x in tokens) if t and len(t.split()) == 1]
    if tokens:
        ours, theirs = _both(tokens)
        assert ours == theirs


def test_weights_are_the_models() -> None:
    data = _crf.load_model().data
    w = _weights.read_weights(data)
    info = _crf._tagger().info()
    assert list(w.labels) == sorted(info.labels, key=lambda k: int(info.labels[k]))
    assert set(w.labels) == set(_crf.LABELS)
    assert {k.decode(): str(v) for k, v in w.attrs.items()} == info.attributes
    assert len(w.state) == 8 * len(w.attrs) * len(w.labels)
    assert len(w.trans) == 8 * len(w.labels) ** 2
    for bad in (data[:40], b"xCRF" + data[4:], data[:-1]):
        with pytest.raises(ValueError):
            _weights.read_weights(bad)


@needs_native
def test_c_decoder_refuses_what_it_cannot_read() -> None:
    decoder = _crf._decoder()
    assert decoder is not None
    viterbi, w = decoder
    with pytest.raises(TypeError):
        viterbi([["w=smith"]], w.attrs, w.state, w.trans)
    with pytest.raises(ValueError):
        viterbi([[b"w=smith"]], w.attrs, w.state, w.trans[:-8])
    with pytest.raises(ValueError):
        viterbi([[b"x"]], {b"x": len(w.attrs)}, w.state, w.trans)
    assert viterbi([], w.attrs, w.state, w.trans) == []
    # a feature the model lacks adds nothing
    assert viterbi([[b"w=smith", b"no such feature"]], w.attrs, w.state, w.trans) == viterbi(
        [[b"w=smith"]], w.attrs, w.state, w.trans
    )


@pytest.mark.shared
@pytest.mark.slow
@needs_native
def test_c_decoder_gives_crfsuites_labels_on_the_real_strings(shared_data: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    from diff_parse import anystyle_strings, crossref_strings

    # every eighth string (all 109,113 were compared once when the decoder was written: none differs)
    strings = (anystyle_strings(shared_data) + crossref_strings(shared_data))[::8]
    assert len(strings) > 10_000
    differ = [s for s in strings if (t := _crf.tokenize(s)) and (pair := _both(t))[0] != pair[1]]
    assert differ == []
