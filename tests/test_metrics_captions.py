"""BLEU-4, ROUGE-L and CIDEr-D against pycocoevalcap (pre-tokenized and through the Java PTB tokenizer),
hand-computed cases, an independent LCS, and the Java-free tokenizer against CoreNLP."""

import random
import shutil

import pytest
from ptb_corpus import COMMON

from harness_metrics import (
    bleu4,
    bleu4_per_sample,
    cider_d,
    cider_d_per_sample,
    ptb_tokenize,
    rouge_l,
    rouge_l_per_sample,
)
from harness_metrics.rouge import lcs_length

pycocoevalcap = pytest.importorskip("pycocoevalcap")
from pycocoevalcap.bleu.bleu import Bleu  # noqa: E402
from pycocoevalcap.cider.cider import Cider  # noqa: E402
from pycocoevalcap.rouge.rouge import Rouge  # noqa: E402

VOCAB = "a the man woman dog red blue cube sphere moves rotates left right slowly around in on of".split()

# Ordinary English captions of the kind the benchmarks produce, with punctuation, contractions,
# numbers, brackets and abbreviations.
SENTENCES = [
    *COMMON,
    "The small red rubber cube rotates clockwise, then stops.",
    "Is there a large metal sphere behind the cylinder?",
    "The light turns off twice; the cone moves to the left.",
    "How many objects orbit around the center? Three.",
    "A person opens the fridge and takes out a bottle of milk.",
    "The woman (in a blue coat) walks her dog... slowly.",
    "Plan A. Then the next one.",
    "It's 5 o'clock and the U.K. office isn't open.",
    "the cube is red , and blue .",
    "they'd've gone, shouldn't've stayed",
    "Rock 'n' roll in the '90s.",
    "x=3.5, y=-2 and a+b",
]


def corpus(rng, n, refs=5):
    def sentence():
        return " ".join(rng.choice(VOCAB) for _ in range(rng.randint(1, 12)))

    return [sentence() for _ in range(n)], [
        [sentence() for _ in range(rng.randint(1, refs))] for _ in range(n)
    ]


def reference_scores(cands, refs):
    gts = {i: r for i, r in enumerate(refs)}
    res = {i: [c] for i, c in enumerate(cands)}
    bleu, bleu_per = Bleu(4).compute_score(gts, res, verbose=0)
    rouge, rouge_per = Rouge().compute_score(gts, res)
    cider, cider_per = Cider().compute_score(gts, res)
    return (bleu[3], list(bleu_per[3])), (rouge, list(rouge_per)), (cider, list(cider_per))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_equal_to_pycocoevalcap_on_pretokenized_input(seed):
    cands, refs = corpus(random.Random(seed), 120)
    (b, b_per), (r, r_per), (c, c_per) = reference_scores(cands, refs)
    assert bleu4(cands, refs, tokenize=False) == pytest.approx(b, abs=1e-9)
    assert bleu4_per_sample(cands, refs, tokenize=False) == pytest.approx(b_per, abs=1e-9)
    assert rouge_l(cands, refs, tokenize=False) == pytest.approx(r, abs=1e-9)
    assert rouge_l_per_sample(cands, refs, tokenize=False) == pytest.approx(r_per, abs=1e-9)
    assert cider_d(cands, refs, tokenize=False) == pytest.approx(c, abs=1e-9)
    assert cider_d_per_sample(cands, refs, tokenize=False) == pytest.approx(c_per, abs=1e-9)


def test_dict_inputs_like_pycocoevalcap():
    cands, refs = corpus(random.Random(5), 10)
    as_dicts = ({f"v{i}": c for i, c in enumerate(cands)}, {f"v{i}": r for i, r in enumerate(refs)})
    assert cider_d(*as_dicts, tokenize=False) == cider_d(cands, refs, tokenize=False)


def test_bleu_hand_case():
    # 5-word candidate, one identical 5-word reference plus a longer one: every n-gram matches.
    cand = ["the cat sat on mats"]
    refs = [["the cat sat on mats", "a cat was sitting on the mats"]]
    assert bleu4(cand, refs, tokenize=False) == pytest.approx(1.0, abs=1e-8)
    # Brevity penalty with the closest reference length 6 for a 4-word exact prefix: exp(1 - 6/4).
    assert bleu4(["w x y z"], [["w x y z q r"]], tokenize=False) == pytest.approx(
        pytest.approx(0.6065306597, abs=1e-8)
    )


def test_rouge_hand_case_and_lcs():
    # LCS("a b c d", "a c d e") = 3: P = R = 3/4, F_beta = 3/4.
    assert rouge_l(["a b c d"], [["a c d e"]], tokenize=False) == pytest.approx(0.75)
    rng = random.Random(7)
    for _ in range(300):
        a = [rng.choice("abcd") for _ in range(rng.randint(0, 12))]
        b = [rng.choice("abcd") for _ in range(rng.randint(0, 12))]
        table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
        for i in range(1, len(a) + 1):
            for j in range(1, len(b) + 1):
                table[i][j] = (
                    table[i - 1][j - 1] + 1 if a[i - 1] == b[j - 1] else max(table[i - 1][j], table[i][j - 1])
                )
        assert lcs_length(a, b) == table[-1][-1]


def test_cider_of_references_against_their_own_corpus_is_ten():
    # Each sample's candidate is its only reference, and no n-gram occurs in every sample: every
    # cosine is 1 and the length penalty is 1, so CIDEr-D = 10 for each sample.
    refs = [
        "a red cube moves left",
        "the blue sphere rotates slowly",
        "a woman walks her dog",
        "two men play chess",
    ]
    assert cider_d_per_sample(refs, [[r] for r in refs], tokenize=False) == pytest.approx([10.0] * 4)
    assert cider_d(["a red cube"], [["a red cube"]], tokenize=False) == 0.0  # one sample: idf = log(1/1) = 0


def test_input_errors_name_the_problem():
    with pytest.raises(ValueError, match="one of each per sample"):
        bleu4(["a"], [["a"], ["b"]])
    with pytest.raises(ValueError, match=r"references\[0\]"):
        cider_d(["a"], [[]])
    with pytest.raises(ValueError, match="candidates"):
        rouge_l("a man", [["a man"]])


def test_tokenizer_handles_common_forms_without_java():
    assert (
        ptb_tokenize("The man's dog can't run (fast), isn't it?")
        == "the man 's dog ca n't run -lrb- fast -rrb- is n't it"
    )
    assert ptb_tokenize("Mr. Smith paid $5.50 at 3 p.m.") == "mr. smith paid $ 5.50 at 3 p.m."


java_missing = shutil.which("java") is None


@pytest.mark.skipif(java_missing, reason="Java is needed for pycocoevalcap's PTBTokenizer")
def test_tokenizer_matches_corenlp_ptb_tokenizer():
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    java = PTBTokenizer().tokenize({i: [{"caption": s}] for i, s in enumerate(SENTENCES)})
    for i, sentence in enumerate(SENTENCES):
        assert ptb_tokenize(sentence) == java[i][0], sentence


@pytest.mark.skipif(java_missing, reason="Java is needed for pycocoevalcap's PTBTokenizer")
def test_scores_equal_pycocoevalcap_pipeline_with_java_tokenizer():
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    rng = random.Random(11)
    cands = [rng.choice(SENTENCES) for _ in range(20)]
    refs = [rng.sample(SENTENCES, 3) for _ in range(20)]
    tok = PTBTokenizer()
    gts = tok.tokenize({i: [{"caption": r} for r in rs] for i, rs in enumerate(refs)})
    res = tok.tokenize({i: [{"caption": c}] for i, c in enumerate(cands)})
    tok_c = [res[i][0] for i in range(20)]
    tok_r = [gts[i] for i in range(20)]
    (b, _), (r, _), (c, _) = reference_scores(tok_c, tok_r)
    assert bleu4(cands, refs) == pytest.approx(b, abs=1e-9)
    assert rouge_l(cands, refs) == pytest.approx(r, abs=1e-9)
    assert cider_d(cands, refs) == pytest.approx(c, abs=1e-9)
