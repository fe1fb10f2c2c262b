/* citejudge._native: the snapshot reader's hot path in C.
 *
 * inverted_abstract(raw) rebuilds an abstract from the raw JSON text of an OpenAlex
 * ``abstract_inverted_index`` ({"word": [positions], ...}) without building the dict of
 * lists that decoding it into Python objects makes (most of a record's reading time).
 *
 * It handles the usual shape only and raises ValueError for everything else (a JSON string,
 * the MAG form, a position that is negative, not a plain integer or far past the end, a key
 * given twice, invalid JSON or UTF-8): the caller then decodes the record the general way,
 * so results and errors are the same with or without this module. A differential test
 * checks that against the Python reader.
 *
 * Returns None for ``null`` and for an index without positions; otherwise the words joined
 * by one space in position order, positions that no word fills left out (the caller applies
 * the usual clean-up to the text).
 *
 * Further down: the whitespace clean-up of a string (clean_spaces), the hashes of a title's
 * block keys (title_block_hashes) and the conversion of a decoded record into a Work
 * (convert), each the twin of a Python function that differential tests hold it to; and the
 * reference parser's CRF decoder (crf_viterbi), the twin of CRFsuite's tagger.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FAIL (-1) /* a shape left to the general reader */
#define MAX_SPAN_FACTOR 4
#define MAX_SPAN_SLACK 4096
#define MAX_POSITION (1 << 20) /* as readers/openalex.py: the Python path skips positions past it */
#define NOMEM (-2)

typedef struct {
    char *buf; /* decoded keys, back to back */
    size_t len;
    size_t *key_off; /* per entry: its key in buf */
    size_t *key_len;
    size_t *pos_start; /* per entry: its positions in pos */
    size_t *pos_end;
    size_t n, ncap;
    int64_t *pos;
    size_t npos;
} Parsed;

static void parsed_free(Parsed *p) {
    free(p->buf);
    free(p->key_off);
    free(p->key_len);
    free(p->pos_start);
    free(p->pos_end);
    free(p->pos);
}

static void put_bytes(Parsed *p, const char *s, size_t k) {
    /* (the buffer is as long as the raw text, which no decoded key is longer than) */
    memcpy(p->buf + p->len, s, k);
    p->len += k;
}

/* Reserve what a raw text of n bytes can need: its keys decode to at most n bytes, it holds
 * at most n / 2 positions and n / 6 entries ("":[]). */
static int reserve(Parsed *p, size_t n) {
    p->buf = malloc(n + 4);
    p->pos = malloc((n / 2 + 1) * sizeof(int64_t));
    p->ncap = n / 6 + 1;
    p->key_off = malloc(p->ncap * sizeof(size_t));
    p->key_len = malloc(p->ncap * sizeof(size_t));
    p->pos_start = malloc(p->ncap * sizeof(size_t));
    p->pos_end = malloc(p->ncap * sizeof(size_t));
    if (!p->buf || !p->pos || !p->key_off || !p->key_len || !p->pos_start || !p->pos_end)
        return NOMEM;
    return 0;
}

/* Bytes a JSON string copies as they are: printable ASCII but the quote and the backslash. */
static unsigned char plain[256];

static void plain_init(void) {
    for (int c = 0x20; c < 0x80; c++) plain[c] = (c != '"' && c != '\\');
}

static void put_utf8(Parsed *p, uint32_t c) {
    char out[4];
    size_t k;
    if (c < 0x80) {
        out[0] = (char)c;
        k = 1;
    } else if (c < 0x800) {
        out[0] = (char)(0xC0 | (c >> 6));
        out[1] = (char)(0x80 | (c & 0x3F));
        k = 2;
    } else if (c < 0x10000) {
        out[0] = (char)(0xE0 | (c >> 12));
        out[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (char)(0x80 | (c & 0x3F));
        k = 3;
    } else {
        out[0] = (char)(0xF0 | (c >> 18));
        out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
        out[2] = (char)(0x80 | ((c >> 6) & 0x3F));
        out[3] = (char)(0x80 | (c & 0x3F));
        k = 4;
    }
    put_bytes(p, out, k);
}

static const char *skip_ws(const char *s, const char *end) {
    while (s < end && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')) s++;
    return s;
}

static int hex4(const char *s, const char *end, uint32_t *out) {
    if (end - s < 4) return FAIL;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (uint32_t)(c - 'A' + 10);
        else return FAIL;
    }
    *out = v;
    return 0;
}

/* Length of the valid UTF-8 sequence at s (not overlong, no surrogates, <= U+10FFFF), or 0. */
static size_t utf8_len(const unsigned char *s, const unsigned char *end) {
    unsigned char c = s[0];
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        if (end - s >= 2 && (s[1] & 0xC0) == 0x80) return 2;
        return 0;
    }
    if (c >= 0xE0 && c <= 0xEF) {
        if (end - s < 3 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80) return 0;
        if (c == 0xE0 && s[1] < 0xA0) return 0;  /* overlong */
        if (c == 0xED && s[1] >= 0xA0) return 0; /* surrogate */
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (end - s < 4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 ||
            (s[3] & 0xC0) != 0x80)
            return 0;
        if (c == 0xF0 && s[1] < 0x90) return 0; /* overlong */
        if (c == 0xF4 && s[1] >= 0x90) return 0; /* past U+10FFFF */
        return 4;
    }
    return 0;
}

/* Parse the JSON string at *ps (at its opening quote) into p->buf; *ps moves past it. */
static int parse_string(Parsed *p, const char **ps, const char *end) {
    const char *s = *ps + 1;
    for (;;) {
        const char *run = s;
        while (s < end && plain[(unsigned char)*s]) s++;
        if (s > run) put_bytes(p, run, (size_t)(s - run));
        if (s >= end) return FAIL;
        unsigned char c = (unsigned char)*s;
        if (c == '"') {
            *ps = s + 1;
            return 0;
        }
        if (c < 0x20) return FAIL; /* a raw control character: invalid JSON */
        if (c >= 0x80) {
            size_t k = utf8_len((const unsigned char *)s, (const unsigned char *)end);
            if (!k) return FAIL;
            put_bytes(p, s, k);
            s += k;
            continue;
        }
        /* an escape */
        if (end - s < 2) return FAIL;
        char e = s[1];
        s += 2;
        char lit;
        switch (e) {
            case '"': lit = '"'; break;
            case '\\': lit = '\\'; break;
            case '/': lit = '/'; break;
            case 'b': lit = '\b'; break;
            case 'f': lit = '\f'; break;
            case 'n': lit = '\n'; break;
            case 'r': lit = '\r'; break;
            case 't': lit = '\t'; break;
            case 'u': {
                uint32_t u;
                if (hex4(s, end, &u)) return FAIL;
                s += 4;
                if (u >= 0xD800 && u <= 0xDBFF) {
                    uint32_t lo;
                    if (end - s < 6 || s[0] != '\\' || s[1] != 'u' || hex4(s + 2, end, &lo) ||
                        lo < 0xDC00 || lo > 0xDFFF)
                        return FAIL; /* a lone surrogate */
                    s += 6;
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                } else if (u >= 0xDC00 && u <= 0xDFFF) {
                    return FAIL;
                }
                put_utf8(p, u);
                continue;
            }
            default: return FAIL;
        }
        put_bytes(p, &lit, 1);
    }
}

/* Parse an array of plain non-negative integers into p->pos. */
static int parse_positions(Parsed *p, const char **ps, const char *end) {
    const char *s = skip_ws(*ps + 1, end);
    if (s < end && *s == ']') {
        *ps = s + 1;
        return 0;
    }
    for (;;) {
        if (s >= end || *s < '0' || *s > '9') return FAIL;
        if (*s == '0' && s + 1 < end && s[1] >= '0' && s[1] <= '9') return FAIL; /* "01" */
        int64_t v = 0;
        int digits = 0;
        while (s < end && *s >= '0' && *s <= '9') {
            if (++digits > 15) return FAIL;
            v = v * 10 + (*s - '0');
            s++;
        }
        if (s < end && (*s == '.' || *s == 'e' || *s == 'E')) return FAIL;
        p->pos[p->npos++] = v; /* (reserved) */
        s = skip_ws(s, end);
        if (s >= end) return FAIL;
        if (*s == ']') {
            *ps = s + 1;
            return 0;
        }
        if (*s != ',') return FAIL;
        s = skip_ws(s + 1, end);
    }
}

static int add_entry(Parsed *p, size_t koff, size_t klen, size_t pstart) {
    if (p->n == p->ncap) return FAIL; /* (cannot happen: reserved) */
    p->key_off[p->n] = koff;
    p->key_len[p->n] = klen;
    p->pos_start[p->n] = pstart;
    p->pos_end[p->n] = p->npos;
    p->n++;
    return 0;
}

static int parse_object(Parsed *p, const char *s, const char *end) {
    s = skip_ws(s, end);
    if (s >= end || *s != '{') return FAIL;
    s = skip_ws(s + 1, end);
    if (s < end && *s == '}') return skip_ws(s + 1, end) == end ? 0 : FAIL;
    for (;;) {
        if (s >= end || *s != '"') return FAIL;
        size_t koff = p->len;
        int r = parse_string(p, &s, end);
        if (r) return r;
        size_t klen = p->len - koff;
        if (klen == 13 && memcmp(p->buf + koff, "InvertedIndex", 13) == 0) return FAIL;
        s = skip_ws(s, end);
        if (s >= end || *s != ':') return FAIL;
        s = skip_ws(s + 1, end);
        if (s >= end || *s != '[') return FAIL;
        size_t pstart = p->npos;
        r = parse_positions(p, &s, end);
        if (r) return r;
        r = add_entry(p, koff, klen, pstart);
        if (r) return r;
        s = skip_ws(s, end);
        if (s >= end) return FAIL;
        if (*s == '}') return skip_ws(s + 1, end) == end ? 0 : FAIL;
        if (*s != ',') return FAIL;
        s = skip_ws(s + 1, end);
    }
}

static uint64_t key_hash(const char *s, size_t k) { /* FNV-1a */
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < k; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* 1 when two entries have the same key (a dict would keep only the last one's positions). */
static int has_duplicate_key(const Parsed *p) {
    size_t cap = 16;
    while (cap < p->n * 2) cap *= 2;
    size_t *slot = malloc(cap * sizeof(size_t));
    if (!slot) return NOMEM;
    for (size_t i = 0; i < cap; i++) slot[i] = SIZE_MAX;
    int dup = 0;
    for (size_t i = 0; i < p->n && !dup; i++) {
        const char *k = p->buf + p->key_off[i];
        size_t kl = p->key_len[i];
        size_t h = (size_t)key_hash(k, kl) & (cap - 1);
        while (slot[h] != SIZE_MAX) {
            size_t j = slot[h];
            if (p->key_len[j] == kl && memcmp(p->buf + p->key_off[j], k, kl) == 0) {
                dup = 1;
                break;
            }
            h = (h + 1) & (cap - 1);
        }
        slot[h] = i;
    }
    free(slot);
    return dup;
}

static PyObject *unhandled(void) {
    PyErr_SetString(PyExc_ValueError, "not a plain inverted index");
    return NULL;
}

static PyObject *inverted_abstract(PyObject *self, PyObject *arg) {
    (void)self;
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const char *s = view.buf;
    const char *end = s + view.len;
    const char *t = skip_ws(s, end);
    if (end - t >= 4 && memcmp(t, "null", 4) == 0 && skip_ws(t + 4, end) == end) {
        PyBuffer_Release(&view);
        Py_RETURN_NONE;
    }
    Parsed p;
    memset(&p, 0, sizeof p);
    PyObject *result = NULL;
    int r = reserve(&p, (size_t)view.len);
    if (r == 0) r = parse_object(&p, s, end);
    PyBuffer_Release(&view);
    if (r == 0 && p.n > 1) r = has_duplicate_key(&p) ? FAIL : 0;
    if (r == NOMEM) {
        PyErr_NoMemory();
        goto done;
    }
    if (r) {
        unhandled();
        goto done;
    }
    size_t size = p.npos;
    if (size == 0) {
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    /* Positions past the count of positions (real records have them: a word of the text
     * left out of the index) make the text longer, the gaps left out. A position far past
     * the count is left to the general reader. */
    size_t span = 0;
    for (size_t j = 0; j < size; j++) {
        if ((size_t)p.pos[j] >= span) span = (size_t)p.pos[j] + 1;
    }
    if (span > size && (span > MAX_SPAN_FACTOR * size + MAX_SPAN_SLACK || span > MAX_POSITION)) {
        unhandled();
        goto done;
    }
    if (span < size) span = size;
    size_t *word = malloc(span * sizeof(size_t)); /* entry whose key fills each position */
    if (!word) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t i = 0; i < span; i++) word[i] = SIZE_MAX;
    for (size_t e = 0; e < p.n; e++) {
        for (size_t j = p.pos_start[e]; j < p.pos_end[e]; j++) {
            word[p.pos[j]] = e; /* a later key takes the position, as in the dict */
        }
    }
    size = span;
    size_t out_len = 0, filled = 0;
    for (size_t i = 0; i < size; i++) {
        if (word[i] != SIZE_MAX) {
            out_len += p.key_len[word[i]];
            filled++;
        }
    }
    out_len += filled - 1; /* separators */
    char *out = malloc(out_len ? out_len : 1);
    if (!out) {
        free(word);
        PyErr_NoMemory();
        goto done;
    }
    char *o = out;
    int first = 1;
    for (size_t i = 0; i < size; i++) {
        size_t e = word[i];
        if (e == SIZE_MAX) continue;
        if (!first) *o++ = ' ';
        first = 0;
        memcpy(o, p.buf + p.key_off[e], p.key_len[e]);
        o += p.key_len[e];
    }
    free(word);
    result = PyUnicode_DecodeUTF8(out, (Py_ssize_t)out_len, "strict");
    free(out);
done:
    parsed_free(&p);
    return result;
}


/* --- title blocks ------------------------------------------------------------------------
 *
 * title_block_hashes(folded) is [crc32(k.encode()) for k in title_blocks(folded)] (see
 * citejudge.index.build: the window and leave-one-out blocks of a folded title), without the
 * key strings: the build stores only the keys' hashes. configure_blocks() gives it the
 * stopwords and sizes of build.py once; a differential test checks the two agree. */

/* CRC-32 (zlib's), eight bytes a step ("slicing by 8"): a table lookup a byte chains each
 * step on the one before, which made the byte-wise loop half of title_block_hashes' time.
 * crc_table[0] is the byte-wise table; crc_table[k][b] is the CRC of b followed by k zeros. */
static uint32_t crc_table[8][256];

static void crc_init(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320U ^ (c >> 1) : c >> 1;
        crc_table[0][i] = c;
    }
    for (int t = 1; t < 8; t++) {
        for (int i = 0; i < 256; i++) {
            uint32_t c = crc_table[t - 1][i];
            crc_table[t][i] = (c >> 8) ^ crc_table[0][c & 0xFF];
        }
    }
}

static uint32_t le32(const unsigned char *s) {
    return (uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 | (uint32_t)s[3] << 24;
}

static uint32_t crc_update(uint32_t c, const unsigned char *s, size_t n) {
    for (; n >= 8; s += 8, n -= 8) {
        uint32_t a = le32(s) ^ c, b = le32(s + 4);
        c = crc_table[7][a & 0xFF] ^ crc_table[6][(a >> 8) & 0xFF] ^
            crc_table[5][(a >> 16) & 0xFF] ^ crc_table[4][a >> 24] ^ crc_table[3][b & 0xFF] ^
            crc_table[2][(b >> 8) & 0xFF] ^ crc_table[1][(b >> 16) & 0xFF] ^ crc_table[0][b >> 24];
    }
    for (; n; s++, n--) c = crc_table[0][(c ^ *s) & 0xFF] ^ (c >> 8);
    return c;
}

#define MAX_STOP 256
#define MAX_WORDS 512
static char stop_buf[4096];
static size_t stop_off[MAX_STOP], stop_len[MAX_STOP], n_stop = 0;
/* the longest stopword, and the bytes stopwords begin with: most words are neither */
static size_t stop_max = 0;
static unsigned char stop_first[256];
static Py_ssize_t cfg_block = 0, cfg_short = 0, cfg_max_token = 0; /* 0: not configured */

static PyObject *configure_blocks(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *words;
    Py_ssize_t block, short_title, max_token;
    if (!PyArg_ParseTuple(args, "Onnn", &words, &block, &short_title, &max_token)) return NULL;
    PyObject *seq = PySequence_Fast(words, "stopwords must be a sequence of str");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    size_t used = 0;
    if (n > MAX_STOP || block < 1 || short_title < block || max_token < 1) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "too many stopwords or bad sizes");
        return NULL;
    }
    /* (read into a copy first: a failed call leaves the configuration as it was) */
    char buf[sizeof stop_buf];
    size_t off[MAX_STOP], len[MAX_STOP];
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t k;
        const char *w = PyUnicode_AsUTF8AndSize(PySequence_Fast_GET_ITEM(seq, i), &k);
        if (!w) {
            Py_DECREF(seq);
            return NULL;
        }
        if (used + (size_t)k > sizeof buf) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "stopwords too long");
            return NULL;
        }
        memcpy(buf + used, w, (size_t)k);
        off[i] = used;
        len[i] = (size_t)k;
        used += (size_t)k;
    }
    memcpy(stop_buf, buf, used);
    memcpy(stop_off, off, (size_t)n * sizeof(size_t));
    memcpy(stop_len, len, (size_t)n * sizeof(size_t));
    stop_max = 0;
    memset(stop_first, 0, sizeof stop_first);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (len[i] > stop_max) stop_max = len[i];
        if (len[i]) stop_first[(unsigned char)buf[off[i]]] = 1;
    }
    Py_DECREF(seq);
    n_stop = (size_t)n;
    cfg_block = block;
    cfg_short = short_title;
    cfg_max_token = max_token;
    Py_RETURN_NONE;
}

static int is_stopword(const char *w, size_t k) {
    if (k > stop_max || (k && !stop_first[(unsigned char)w[0]])) return 0;
    for (size_t i = 0; i < n_stop; i++) {
        if (stop_len[i] == k && memcmp(stop_buf + stop_off[i], w, k) == 0) return 1;
    }
    return 0;
}

typedef struct {
    const char *p;
    size_t n;
} Slice;

typedef struct {
    size_t off, len;
} Span;

static int span_cmp_buf(const char *buf, Span a, Span b) {
    size_t m = a.len < b.len ? a.len : b.len;
    int c = memcmp(buf + a.off, buf + b.off, m);
    if (c) return c;
    return (a.len > b.len) - (a.len < b.len);
}

static PyObject *title_block_hashes(PyObject *self, PyObject *arg) {
    (void)self;
    if (!cfg_block) {
        PyErr_SetString(PyExc_RuntimeError, "configure_blocks() was not called");
        return NULL;
    }
    Py_ssize_t len;
    const char *s = PyUnicode_AsUTF8AndSize(arg, &len);
    if (!s) return NULL;
    const unsigned char *u = (const unsigned char *)s, *end = u + len;
    /* str.split(): runs of Unicode whitespace separate words */
    Slice words[MAX_WORDS];
    size_t n = 0;
    const unsigned char *start = NULL;
    while (u <= end) {
        uint32_t cp = 0;
        size_t k = 1;
        int space;
        if (u == end) {
            space = 1;
        } else {
            unsigned char c = *u;
            if (c < 0x80) cp = c;
            else if (c < 0xE0) { cp = c & 0x1F; k = 2; }
            else if (c < 0xF0) { cp = c & 0x0F; k = 3; }
            else { cp = c & 0x07; k = 4; }
            for (size_t i = 1; i < k; i++) cp = (cp << 6) | (u[i] & 0x3F);
            space = Py_UNICODE_ISSPACE(cp);
        }
        if (space) {
            if (start) {
                size_t wl = (size_t)(u - start);
                if (!is_stopword((const char *)start, wl) && wl < (size_t)cfg_max_token) {
                    if (n == MAX_WORDS) {
                        PyErr_SetString(PyExc_ValueError, "title too long");
                        return NULL;
                    }
                    words[n].p = (const char *)start;
                    words[n].n = wl;
                    n++;
                }
                start = NULL;
            }
        } else if (!start) {
            start = u;
        }
        u += k;
    }
    size_t b = (size_t)cfg_block;
    if (n < b) return PyList_New(0);
    /* the spans, as [from, to) ranges of words with one word possibly left out */
    size_t from[MAX_WORDS + 8], to[MAX_WORDS + 8], skip[MAX_WORDS + 8];
    size_t ns = 0;
    from[ns] = 0, to[ns] = b, skip[ns++] = SIZE_MAX;
    from[ns] = n - b, to[ns] = n, skip[ns++] = SIZE_MAX;
    if (n > b) {
        from[ns] = 1, to[ns] = b + 1, skip[ns++] = SIZE_MAX;
        from[ns] = n - b - 1, to[ns] = n - 1, skip[ns++] = SIZE_MAX;
    }
    if (n <= (size_t)cfg_short) {
        from[ns] = 0, to[ns] = n, skip[ns++] = SIZE_MAX;
        for (size_t i = 0; i < n; i++) from[ns] = 0, to[ns] = n, skip[ns++] = i;
    }
    /* their keys, "B:" and the words joined by a space, back to back */
    size_t cap = 0;
    for (size_t i = 0; i < n; i++) cap += words[i].n + 1;
    cap = (cap + 2) * ns;
    char *buf = malloc(cap ? cap : 1);
    Span *spans = malloc(ns * sizeof(Span));
    if (!buf || !spans) {
        free(buf);
        free(spans);
        return PyErr_NoMemory();
    }
    size_t used = 0, nk = 0;
    for (size_t j = 0; j < ns; j++) {
        size_t off = used;
        buf[used++] = 'B';
        buf[used++] = ':';
        int first = 1;
        for (size_t i = from[j]; i < to[j]; i++) {
            if (i == skip[j]) continue;
            if (!first) buf[used++] = ' ';
            first = 0;
            memcpy(buf + used, words[i].p, words[i].n);
            used += words[i].n;
        }
        Span sp = {off, used - off};
        int seen = 0; /* each key once */
        for (size_t i = 0; i < nk && !seen; i++) seen = span_cmp_buf(buf, spans[i], sp) == 0;
        if (seen) {
            used = off;
            continue;
        }
        /* insertion into sorted order (the keys' str order is their UTF-8 bytes' order) */
        size_t at = nk;
        while (at > 0 && span_cmp_buf(buf, spans[at - 1], sp) > 0) {
            spans[at] = spans[at - 1];
            at--;
        }
        spans[at] = sp;
        nk++;
    }
    PyObject *out = PyList_New((Py_ssize_t)nk);
    for (size_t i = 0; out && i < nk; i++) {
        uint32_t c = crc_update(0xFFFFFFFFU, (const unsigned char *)buf + spans[i].off,
                                spans[i].len) ^ 0xFFFFFFFFU;
        PyObject *h = PyLong_FromUnsignedLong(c);
        if (!h) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, (Py_ssize_t)i, h);
    }
    free(buf);
    free(spans);
    return out;
}


/* --- lookup keys ----------------------------------------------------------------------------
 *
 * key_hashes(work, folded) is citejudge.index.build's key_hashes: the CRC-32 of each key of
 * work_keys(work, folded, blocks=False) ("i:" id, "d:" DOIs, "a:" arXiv ids, "p:" PMID, "c:"
 * PMCID, "t:" title key), then title_block_hashes(folded) when the work has a title key, in
 * that order and without making the key strings. It returns None, for build.py to take its
 * Python path, where that path does more than hash plain strings: an arXiv DOI (build.py
 * derives its arXiv id), a value that is neither None nor a str, text with a lone surrogate,
 * a title of more words than the block hasher takes. */

static PyObject *s_id, *s_doi, *s_arxiv, *s_pmid, *s_pmcid, *s_versions;

static int keys_init(void) {
    s_id = PyUnicode_InternFromString("id");
    s_doi = PyUnicode_InternFromString("doi");
    s_arxiv = PyUnicode_InternFromString("arxiv");
    s_pmid = PyUnicode_InternFromString("pmid");
    s_pmcid = PyUnicode_InternFromString("pmcid");
    s_versions = PyUnicode_InternFromString("versions");
    return s_id && s_doi && s_arxiv && s_pmid && s_pmcid && s_versions ? 0 : -1;
}

typedef struct {
    PyObject *list; /* the hashes so far (a new list) */
    PyObject *seen[2][64]; /* the DOIs and arXiv ids hashed so far (new references) */
    size_t n_seen[2];
} Keys;

#define K_FALLBACK 0
#define K_OK 1
#define K_ERROR (-1)

static int key_append(Keys *k, uint32_t h) {
    PyObject *v = PyLong_FromUnsignedLong(h);
    if (!v) return K_ERROR;
    int r = PyList_Append(k->list, v);
    Py_DECREF(v);
    return r < 0 ? K_ERROR : K_OK;
}

/* The UTF-8 of an exact str; K_FALLBACK for another type or a lone surrogate. */
static int key_text(PyObject *v, const char **s, Py_ssize_t *n) {
    if (!PyUnicode_CheckExact(v)) return K_FALLBACK;
    *s = PyUnicode_AsUTF8AndSize(v, n);
    if (*s) return K_OK;
    if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) return K_ERROR;
    PyErr_Clear();
    return K_FALLBACK;
}

/* Hash prefix ":" value (value: an exact str), unless it is None or empty (when ``truth``), or
 * the same as a value of its kind already hashed (kind 0: DOIs, 1: arXiv ids; -1: none). */
static int key_add(Keys *k, char prefix, PyObject *v, int truth, int kind) {
    if (v == Py_None && truth) return K_OK;
    const char *s;
    Py_ssize_t n;
    int r = key_text(v, &s, &n);
    if (r != K_OK) return r;
    if (truth && n == 0) return K_OK;
    if (kind >= 0) {
        for (size_t i = 0; i < k->n_seen[kind]; i++) {
            int eq = PyUnicode_Compare(k->seen[kind][i], v);
            if (eq == -1 && PyErr_Occurred()) return K_ERROR;
            if (eq == 0) return K_OK;
        }
        if (k->n_seen[kind] == 64) return K_FALLBACK; /* (a work with dozens of versions) */
        Py_INCREF(v);
        k->seen[kind][k->n_seen[kind]++] = v;
        if (kind == 0 && n >= 15 && memcmp(s, "10.48550/arxiv.", 15) == 0) return K_FALLBACK;
    }
    const unsigned char pre[2] = {(unsigned char)prefix, ':'};
    uint32_t c = crc_update(crc_update(0xFFFFFFFFU, pre, 2), (const unsigned char *)s, (size_t)n);
    return key_append(k, c ^ 0xFFFFFFFFU);
}

/* The work's attribute ``name``, then each version's (the lists work_keys makes; ``versions``
 * NULL for none). */
static int key_field(Keys *k, char prefix, int kind, PyObject *work, PyObject *versions,
                    PyObject *name) {
    PyObject *v = PyObject_GetAttr(work, name);
    if (!v) return K_ERROR;
    int r = key_add(k, prefix, v, 1, kind);
    Py_DECREF(v);
    /* (a getter may run Python code that changes the list: its size is read at each step, as
     * a list comprehension does, and the item is held while its attribute is read) */
    for (Py_ssize_t i = 0; r == K_OK && versions && i < PyList_GET_SIZE(versions); i++) {
        PyObject *item = PyList_GET_ITEM(versions, i);
        Py_INCREF(item);
        v = PyObject_GetAttr(item, name);
        Py_DECREF(item);
        if (!v) return K_ERROR;
        r = key_add(k, prefix, v, 1, kind);
        Py_DECREF(v);
    }
    return r;
}

static int key_title(Keys *k, PyObject *folded) {
    const char *s;
    Py_ssize_t n;
    int r = key_text(folded, &s, &n);
    if (r != K_OK) return r;
    /* "t:" + folded.replace(" ", ""): a space byte is a space (UTF-8 has no other 0x20) */
    const unsigned char pre[2] = {'t', ':'};
    uint32_t c = crc_update(0xFFFFFFFFU, pre, 2);
    size_t kept = 0;
    const unsigned char *u = (const unsigned char *)s, *end = u + n;
    while (u < end) {
        const unsigned char *sp = memchr(u, ' ', (size_t)(end - u));
        const unsigned char *stop = sp ? sp : end;
        c = crc_update(c, u, (size_t)(stop - u));
        kept += (size_t)(stop - u);
        u = sp ? sp + 1 : end;
    }
    if (!kept) return K_OK; /* no title key, so no blocks */
    if (key_append(k, c ^ 0xFFFFFFFFU) != K_OK) return K_ERROR;
    PyObject *blocks = title_block_hashes(NULL, folded);
    if (!blocks) {
        if (!PyErr_ExceptionMatches(PyExc_ValueError)) return K_ERROR;
        PyErr_Clear(); /* a title of hundreds of words */
        return K_FALLBACK;
    }
    Py_ssize_t end_at = PyList_GET_SIZE(k->list);
    r = PyList_SetSlice(k->list, end_at, end_at, blocks);
    Py_DECREF(blocks);
    return r < 0 ? K_ERROR : K_OK;
}

static PyObject *key_hashes(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *work, *folded;
    if (!PyArg_ParseTuple(args, "OO", &work, &folded)) return NULL;
    Keys k = {.list = PyList_New(0), .n_seen = {0, 0}};
    if (!k.list) return NULL;
    PyObject *versions = PyObject_GetAttr(work, s_versions);
    if (!versions) {
        Py_DECREF(k.list);
        return NULL;
    }
    int r = K_OK;
    if (versions == Py_None || (PyList_CheckExact(versions) && !PyList_GET_SIZE(versions))) {
        Py_CLEAR(versions); /* (work_keys: no versions to add) */
    } else if (!PyList_CheckExact(versions)) {
        r = K_FALLBACK;
    }
    if (r == K_OK) {
        PyObject *id = PyObject_GetAttr(work, s_id);
        r = id ? key_add(&k, 'i', id, 0, -1) : K_ERROR;
        Py_XDECREF(id);
    }
    if (r == K_OK) r = key_field(&k, 'd', 0, work, versions, s_doi);
    if (r == K_OK) r = key_field(&k, 'a', 1, work, versions, s_arxiv);
    if (r == K_OK) r = key_field(&k, 'p', -1, work, NULL, s_pmid);
    if (r == K_OK) r = key_field(&k, 'c', -1, work, NULL, s_pmcid);
    if (r == K_OK) r = key_title(&k, folded);
    Py_XDECREF(versions);
    for (int kind = 0; kind < 2; kind++) {
        for (size_t i = 0; i < k.n_seen[kind]; i++) Py_DECREF(k.seen[kind][i]);
    }
    if (r == K_OK) return k.list;
    Py_DECREF(k.list);
    if (r == K_ERROR) return NULL;
    Py_RETURN_NONE;
}


/* --- whitespace clean-up -------------------------------------------------------------------
 *
 * clean_spaces(s) is the second half of readers/openalex.py's _clean (after markup is
 * stripped): runs of whitespace become one space when the text has a double space or a
 * character that is not printable, and a double space, a line break, a tab, a carriage
 * return or a no-break space; then the text is stripped, and None stands for an empty one.
 * Whitespace is what str.isspace() and re's \s call so (Py_UNICODE_ISSPACE). */

/* a double space in one-byte text */
static int ucs1_double_space(const Py_UCS1 *d, Py_ssize_t n) {
    const Py_UCS1 *end = d + n, *p = d;
    while ((p = memchr(p, ' ', (size_t)(end - p))) != NULL && p + 1 < end) {
        if (p[1] == ' ') return 1;
        p += 1;
    }
    return 0;
}

/* whitespace runs of text (kind, data, n) as one space, ends stripped: a new str or None */
#define COLLAPSE(T, KIND)                                                                    \
    do {                                                                                     \
        const T *src = (const T *)data;                                                      \
        T *buf = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(T));                              \
        if (!buf) return PyErr_NoMemory();                                                   \
        Py_ssize_t m = 0;                                                                    \
        int in_space = 1; /* (leading whitespace is dropped) */                              \
        for (Py_ssize_t i = 0; i < n; i++) {                                                 \
            T ch = src[i];                                                                   \
            if (Py_UNICODE_ISSPACE(ch)) {                                                    \
                if (!in_space) buf[m++] = ' ';                                               \
                in_space = 1;                                                                \
            } else {                                                                         \
                buf[m++] = ch;                                                               \
                in_space = 0;                                                                \
            }                                                                                \
        }                                                                                    \
        if (m && buf[m - 1] == ' ') m--; /* (trailing whitespace too) */                     \
        PyObject *out = m ? PyUnicode_FromKindAndData(KIND, buf, m) : NULL;                  \
        PyMem_Free(buf);                                                                     \
        if (!m) Py_RETURN_NONE;                                                              \
        return out;                                                                          \
    } while (0)

static PyObject *clean_spaces(PyObject *self, PyObject *arg) {
    (void)self;
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "clean_spaces() takes a str");
        return NULL;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(arg);
    int kind = PyUnicode_KIND(arg);
    const void *data = PyUnicode_DATA(arg);
    int dbl = 0, nonprint = 0, special = 0;
    if (kind == PyUnicode_1BYTE_KIND) { /* (most text: one pass of a cheap test a character) */
        const Py_UCS1 *d = data;
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_UCS1 ch = d[i];
            if ((Py_UCS1)(ch - 0x20) < 0x5F) continue; /* printable ASCII */
            if (ch == '\n' || ch == '\t' || ch == '\r' || ch == 0xA0) special = 1;
            if (!nonprint && !Py_UNICODE_ISPRINTABLE(ch)) nonprint = 1;
        }
        dbl = ucs1_double_space(d, n);
    } else {
        Py_UCS4 prev = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_UCS4 ch = PyUnicode_READ(kind, data, i);
            if (ch < 0x7F && ch >= 0x20) { /* printable ASCII: only a double space counts */
                if (ch == ' ' && prev == ' ') dbl = 1;
            } else {
                if (ch == '\n' || ch == '\t' || ch == '\r' || ch == 0xA0) special = 1;
                if (!nonprint && !Py_UNICODE_ISPRINTABLE(ch)) nonprint = 1;
            }
            prev = ch;
        }
    }
    if ((dbl || nonprint) && (dbl || special)) {
        if (kind == PyUnicode_1BYTE_KIND) COLLAPSE(Py_UCS1, PyUnicode_1BYTE_KIND);
        if (kind == PyUnicode_2BYTE_KIND) COLLAPSE(Py_UCS2, PyUnicode_2BYTE_KIND);
        COLLAPSE(Py_UCS4, PyUnicode_4BYTE_KIND);
    }
    Py_ssize_t a = 0, b = n;
    while (a < b && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, a))) a++;
    while (b > a && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, b - 1))) b--;
    if (a == b) Py_RETURN_NONE;
    if (a == 0 && b == n) {
        Py_INCREF(arg);
        return arg;
    }
    return PyUnicode_Substring(arg, a, b);
}

/* --- record conversion ---------------------------------------------------------------------
 *
 * convert(rec, source, inverted, abstract) is readers/openalex.py's _convert for a record
 * decoded as an _OAWorkRaw (abstract true) or an _OAWorkMeta (false), statement for statement, without the interpreter's cost of running it (a third
 * of a worker's time a record). It does in C what is plain (attribute reads, the location,
 * venue, version and author loops, the OpenAlex id, DOI URL and ORCID forms OpenAlex writes,
 * the whitespace clean-up) and calls the Python helpers that configure_convert() gave it for
 * everything else: markup, arXiv locations, DOIs and ids of any other form, PMIDs, PMCIDs, MAG
 * ids, abstracts needing a clean-up. It returns None when the record has no id of the usual
 * form: the caller then takes the Python path, which says why. A differential test checks that
 * both give the same Work for hand-made, random and real records. */

enum {
    H_CLEAN,
    H_DOI,
    H_STRIP_LANDING,
    H_OPENALEX,
    H_ARXIV_OF_LOCATION,
    H_ORCID,
    H_PMID,
    H_PMCID,
    H_MAG,
    H_ARXIV_FROM_DOI,
    H_ABSTRACT_TEXT,
    H_ABSTRACT_FROM_INDEX,
    H_WORK,
    H_AUTHOR,
    H_VERSION,
    H_VERSION_KIND,
    H_NO_IDS,
    H_HOST_KIND,
    H_NAMED_KINDS,
    H_IS_VENUE_NAME,
    N_HELPERS
};
static const char *helper_names[N_HELPERS] = {
    "clean", "doi", "strip_landing_suffix", "openalex", "arxiv_of_location", "orcid", "pmid",
    "pmcid", "mag", "arxiv_from_doi", "abstract_text", "abstract_from_inverted_index", "Work",
    "Author", "Version", "version_kind", "no_ids", "host_kind", "named_kinds", "is_venue_name",
};
static PyObject *helpers[N_HELPERS];

enum {
    A_ID, A_DOI, A_TITLE, A_DISPLAY_NAME, A_PUBLICATION_YEAR, A_IDS, A_LANGUAGE, A_TYPE,
    A_PRIMARY_LOCATION, A_LOCATIONS, A_HOST_VENUE, A_AUTHORSHIPS, A_IS_RETRACTED,
    A_UPDATED_DATE, A_OPENALEX, A_PMID, A_PMCID, A_MAG, A_SOURCE, A_LANDING_PAGE_URL,
    A_PDF_URL, A_VERSION, A_RAW_SOURCE_NAME, A_HOST_ORGANIZATION_NAME, A_ABBREVIATED_TITLE,
    A_PUBLISHER, A_URL, A_AUTHOR, A_RAW_AUTHOR_NAME, A_ORCID, A_ABSTRACT_INVERTED_INDEX_V3,
    A_ABSTRACT, N_ATTRS
};
static const char *attr_names[N_ATTRS] = {
    "id", "doi", "title", "display_name", "publication_year", "ids", "language", "type",
    "primary_location", "locations", "host_venue", "authorships", "is_retracted",
    "updated_date", "openalex", "pmid", "pmcid", "mag", "source", "landing_page_url",
    "pdf_url", "version", "raw_source_name", "host_organization_name", "abbreviated_title",
    "publisher", "url", "author", "raw_author_name", "orcid", "abstract_inverted_index_v3",
    "abstract",
};
static PyObject *attrs[N_ATTRS];
static PyObject *str_empty, *str_submitted, *str_preprint, *str_doi_org, *str_arxiv_doi;
static PyObject *str_two_spaces;

static PyObject *configure_convert(PyObject *self, PyObject *arg) {
    (void)self;
    if (!PyDict_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "configure_convert() takes a dict of helpers");
        return NULL;
    }
    PyObject *got[N_HELPERS];
    for (int i = 0; i < N_HELPERS; i++) {
        got[i] = PyDict_GetItemString(arg, helper_names[i]); /* borrowed */
        if (got[i] == NULL) {
            PyErr_Format(PyExc_KeyError, "configure_convert(): no helper %s", helper_names[i]);
            return NULL;
        }
    }
    if (!PyDict_Check(got[H_VERSION_KIND])) {
        PyErr_SetString(PyExc_TypeError, "configure_convert(): version_kind must be a dict");
        return NULL;
    }
    if (!PyAnySet_Check(got[H_NAMED_KINDS])) {
        PyErr_SetString(PyExc_TypeError, "configure_convert(): named_kinds must be a set");
        return NULL;
    }
    for (int i = 0; i < N_HELPERS; i++) {
        Py_INCREF(got[i]);
        Py_XSETREF(helpers[i], got[i]);
    }
    return Py_NewRef(Py_None);
}

static int convert_init(void) {
    for (int i = 0; i < N_ATTRS; i++)
        if (!(attrs[i] = PyUnicode_InternFromString(attr_names[i]))) return -1;
    if (!(str_empty = PyUnicode_InternFromString(""))) return -1;
    if (!(str_submitted = PyUnicode_InternFromString("submitted"))) return -1;
    if (!(str_preprint = PyUnicode_InternFromString("preprint"))) return -1;
    if (!(str_doi_org = PyUnicode_InternFromString("doi.org/"))) return -1;
    if (!(str_arxiv_doi = PyUnicode_InternFromString("10.48550/arxiv."))) return -1;
    if (!(str_two_spaces = PyUnicode_InternFromString("  "))) return -1;
    return 0;
}

#define GET(obj, a) PyObject_GetAttr((obj), attrs[a])

static PyObject *call1(int h, PyObject *arg) { return PyObject_CallOneArg(helpers[h], arg); }


/* truthiness of what msgspec decoded (str, int, bool, list, Struct or None) */
static int truthy(PyObject *o) {
    if (o == Py_None) return 0;
    if (PyUnicode_Check(o)) return PyUnicode_GET_LENGTH(o) > 0;
    return PyObject_IsTrue(o);
}

static int has_char(PyObject *s, Py_UCS4 c) {
    return PyUnicode_FindChar(s, c, 0, PyUnicode_GET_LENGTH(s), 1) >= 0;
}

/* ASCII text of an ASCII str contains needle (lower-case ASCII), ignoring case */
static int ascii_icontains(PyObject *s, const char *needle) {
    const unsigned char *d = PyUnicode_1BYTE_DATA(s);
    Py_ssize_t n = PyUnicode_GET_LENGTH(s), k = (Py_ssize_t)strlen(needle);
    for (Py_ssize_t i = 0; i + k <= n; i++) {
        Py_ssize_t j = 0;
        while (j < k) {
            unsigned char c = d[i + j];
            if (c >= 'A' && c <= 'Z') c = (unsigned char)(c - 'A' + 'a');
            if (c != (unsigned char)needle[j]) break;
            j++;
        }
        if (j == k) return 1;
    }
    return 0;
}

/* an ASCII str that starts with prefix */
static int ascii_starts_with(PyObject *s, const char *prefix) {
    Py_ssize_t k = (Py_ssize_t)strlen(prefix);
    if (!PyUnicode_IS_ASCII(s) || PyUnicode_GET_LENGTH(s) < k) return 0;
    return memcmp(PyUnicode_1BYTE_DATA(s), prefix, (size_t)k) == 0;
}

/* _clean: None for None or "", markup through the Python helper, else clean_spaces */
static PyObject *c_clean(PyObject *s) {
    if (s == Py_None || (PyUnicode_Check(s) && PyUnicode_GET_LENGTH(s) == 0))
        return Py_NewRef(Py_None);
    if (!PyUnicode_Check(s) || has_char(s, '<') || has_char(s, '&')) return call1(H_CLEAN, s);
    return clean_spaces(NULL, s);
}

/* str.strip(), None for an empty result */
static PyObject *strip_or_none(PyObject *s) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(s), a = 0, b = n;
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    while (a < b && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, a))) a++;
    while (b > a && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, b - 1))) b--;
    if (a == b) return Py_NewRef(Py_None);
    if (a == 0 && b == n) return Py_NewRef(s);
    return PyUnicode_Substring(s, a, b);
}

/* a double space in the text of a str (-1 on error) */
static int has_double_space(PyObject *s) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    if (PyUnicode_KIND(s) == PyUnicode_1BYTE_KIND)
        return ucs1_double_space(PyUnicode_1BYTE_DATA(s), n);
    Py_ssize_t at = PyUnicode_Find(s, str_two_spaces, 0, n, 1);
    return at == -2 ? -1 : at >= 0;
}

/* _abstract_text: the text stripped, or the Python helper when it needs a clean-up (markup,
 * a line break or a double space); each test is one fast scan, as in Python */
static PyObject *c_abstract_text(PyObject *s) {
    if (!PyUnicode_Check(s) || has_char(s, '<') || has_char(s, '&') || has_char(s, '\n'))
        return call1(H_ABSTRACT_TEXT, s);
    int dbl = has_double_space(s);
    if (dbl < 0) return NULL;
    if (dbl) return call1(H_ABSTRACT_TEXT, s);
    return strip_or_none(s);
}

/* _openalex: "https://openalex.org/W<digits>" -> "W<digits>", else the Python helper */
static PyObject *c_openalex(PyObject *v) {
    static const char prefix[] = "https://openalex.org/W";
    const Py_ssize_t k = (Py_ssize_t)sizeof prefix - 1;
    if (PyUnicode_Check(v) && ascii_starts_with(v, prefix) && PyUnicode_GET_LENGTH(v) > k) {
        const unsigned char *d = PyUnicode_1BYTE_DATA(v);
        Py_ssize_t n = PyUnicode_GET_LENGTH(v), i = k;
        while (i < n && d[i] >= '0' && d[i] <= '9') i++;
        if (i == n) return PyUnicode_Substring(v, k - 1, n);
    }
    return call1(H_OPENALEX, v);
}

/* _doi: the fast path for a plain "https://doi.org/10..." URL, else the Python helper */
static PyObject *c_doi(PyObject *v) {
    static const char prefix[] = "https://doi.org/";
    static const char *images[] = {".svg", ".png", ".gif", ".jpg", ".jpeg"};
    const Py_ssize_t k = (Py_ssize_t)sizeof prefix - 1;
    if (v == Py_None || (PyUnicode_Check(v) && PyUnicode_GET_LENGTH(v) == 0))
        return Py_NewRef(Py_None);
    if (!PyUnicode_Check(v) || !ascii_starts_with(v, prefix)) return call1(H_DOI, v);
    const unsigned char *d = PyUnicode_1BYTE_DATA(v);
    Py_ssize_t n = PyUnicode_GET_LENGTH(v);
    for (Py_ssize_t i = 0; i < n; i++)
        if (d[i] < 0x21 || d[i] > 0x7E || d[i] == '%') return call1(H_DOI, v);
    if (strchr(".,;:)]}>'\"", d[n - 1]) != NULL) return call1(H_DOI, v);
    Py_ssize_t m = n - k;
    char *low = PyMem_Malloc((size_t)m + 1);
    if (!low) return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < m; i++) {
        unsigned char c = d[k + i];
        low[i] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
    low[m] = 0;
    for (size_t e = 0; e < sizeof images / sizeof *images; e++) {
        size_t el = strlen(images[e]);
        if ((size_t)m >= el && memcmp(low + m - (Py_ssize_t)el, images[e], el) == 0) {
            PyMem_Free(low);
            return call1(H_DOI, v);
        }
    }
    PyObject *s = PyUnicode_FromStringAndSize(low, m);
    int tail = m > 0 && (strchr(low, '?') || strchr(low, '#') || strstr(low, "&type=") ||
                         (low[m - 1] >= 'a' && low[m - 1] <= 'z') ||
                         strncmp(low, "10.1101/", 8) == 0);
    PyMem_Free(low);
    if (!s) return NULL;
    if (tail || m == 0) { /* a landing-page tail to strip (strip_landing_suffix) */
        PyObject *t = call1(H_STRIP_LANDING, s);
        Py_DECREF(s);
        if (!t) return NULL;
        if (!PyUnicode_Check(t) || !PyUnicode_IS_ASCII(t)) { /* (it only cuts: never) */
            Py_DECREF(t);
            return call1(H_DOI, v);
        }
        s = t;
    }
    /* ^10\.\d{4,9}/\S+$ on printable ASCII without spaces */
    const unsigned char *b = PyUnicode_1BYTE_DATA(s);
    Py_ssize_t sl = PyUnicode_GET_LENGTH(s), j = 3;
    int ok = sl > 3 && memcmp(b, "10.", 3) == 0;
    if (ok) {
        while (j < sl && b[j] >= '0' && b[j] <= '9') j++;
        ok = j - 3 >= 4 && j - 3 <= 9 && j < sl && b[j] == '/' && j + 1 < sl;
    }
    if (ok) return s;
    Py_DECREF(s);
    return Py_NewRef(Py_None);
}

/* _orcid: the first dddd-dddd-dddd-ddd[dX] in an ASCII value, upper-cased */
static PyObject *c_orcid(PyObject *v) {
    if (!truthy(v)) return Py_NewRef(Py_None);
    if (!PyUnicode_Check(v) || !PyUnicode_IS_ASCII(v)) return call1(H_ORCID, v);
    const unsigned char *d = PyUnicode_1BYTE_DATA(v);
    Py_ssize_t n = PyUnicode_GET_LENGTH(v);
    static const char shape[] = "dddd-dddd-dddd-dddx";
    for (Py_ssize_t i = 0; i + 19 <= n; i++) {
        int j = 0;
        for (; j < 19; j++) {
            unsigned char c = d[i + j];
            char want = shape[j];
            if (want == 'd' ? !(c >= '0' && c <= '9')
                : want == '-' ? c != '-'
                              : !((c >= '0' && c <= '9') || c == 'X' || c == 'x'))
                break;
        }
        if (j == 19) {
            char out[19];
            memcpy(out, d + i, 19);
            if (out[18] == 'x') out[18] = 'X';
            return PyUnicode_FromStringAndSize(out, 19);
        }
    }
    return Py_NewRef(Py_None);
}

/* 1 when attribute a of obj is text that may contain needle (lower-case ASCII) whatever its
 * case (any text not ASCII may: its lower() can differ), 0 when not, -1 on error */
static int may_contain(PyObject *obj, int a, const char *needle) {
    PyObject *v = GET(obj, a);
    if (!v) return -1;
    int r = PyUnicode_Check(v) ? PyUnicode_GET_LENGTH(v) > 0 &&
                                     (!PyUnicode_IS_ASCII(v) || ascii_icontains(v, needle))
                               : v != Py_None;
    Py_DECREF(v);
    return r;
}

/* _arxiv_of_location: None when nothing of the location can name arXiv, else the helper */
static PyObject *c_arxiv_of_location(PyObject *loc) {
    int maybe = may_contain(loc, A_LANDING_PAGE_URL, "arxiv.org/");
    if (maybe == 0) maybe = may_contain(loc, A_PDF_URL, "arxiv.org/");
    if (maybe == 0) maybe = may_contain(loc, A_ID, "arxiv");
    if (maybe == 0) {
        PyObject *src = GET(loc, A_SOURCE);
        if (!src) return NULL;
        maybe = src == Py_None ? 0 : may_contain(src, A_DISPLAY_NAME, "arxiv");
        Py_DECREF(src);
    }
    if (maybe < 0) return NULL;
    return maybe ? call1(H_ARXIV_OF_LOCATION, loc) : Py_NewRef(Py_None);
}

/* value, or the Python helper h of it when it is not None */
static PyObject *unless_none(int h, PyObject *v) {
    if (v == Py_None) return Py_NewRef(Py_None);
    return call1(h, v);
}

/* `value in seq` for a list: -1 on error */
static int in_list(PyObject *list, PyObject *v) { return PySequence_Contains(list, v); }

/* kinds[name] = kind unless name is empty or already there (a name's first source decides) */
static int set_kind(PyObject *kinds, PyObject *name, PyObject *kind) {
    if (!truthy(name)) return 0;
    PyObject *had = PyDict_SetDefault(kinds, name, kind); /* borrowed */
    return had ? 0 : -1;
}

/* _add(seq, value, exclude): append value when truthy, not in seq and not exclude; steals value */
static int add_unless(PyObject *seq, PyObject *value, PyObject *exclude) {
    if (!value) return -1;
    int r = 0;
    if (truthy(value)) {
        int in = in_list(seq, value);
        int ex = in ? 0 : (exclude ? PyObject_RichCompareBool(value, exclude, Py_EQ) : 0);
        if (in < 0 || ex < 0)
            r = -1;
        else if (!in && !ex)
            r = PyList_Append(seq, value);
    }
    Py_DECREF(value);
    return r;
}

static PyObject *convert(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *rec, *source, *inverted, *with_abstract;
    if (!PyArg_UnpackTuple(args, "convert", 4, 4, &rec, &source, &inverted, &with_abstract))
        return NULL;
    int read_abstract = PyObject_IsTrue(with_abstract);
    if (read_abstract < 0) return NULL;
    if (helpers[H_WORK] == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "convert(): configure_convert() was not called");
        return NULL;
    }
    PyObject *result = NULL;
    PyObject *ids = NULL, *wid = NULL, *title = NULL, *raw_doi = NULL, *rec_doi = NULL;
    PyObject *doi = NULL, *arxiv = NULL, *primary = NULL, *locations = NULL;
    PyObject *src_names = NULL, *raw_names = NULL, *venue = NULL, *hv = NULL;
    PyObject *venue_alt = NULL, *first_src = NULL, *versions = NULL, *urls = NULL;
    PyObject *authors = NULL, *abstract = NULL, *updated = NULL, *year = NULL, *tmp = NULL;
    PyObject *pmid = NULL, *pmcid = NULL, *mag = NULL, *type = NULL, *language = NULL;
    PyObject *is_retracted = NULL, *kinds = NULL;

    if (!(ids = GET(rec, A_IDS))) goto done;
    if (!(tmp = GET(rec, A_ID))) goto done;
    wid = c_openalex(tmp);
    Py_CLEAR(tmp);
    if (!wid) goto done;
    if (wid == Py_None && ids != Py_None) {
        Py_CLEAR(wid);
        if (!(tmp = GET(ids, A_OPENALEX))) goto done;
        wid = c_openalex(tmp);
        Py_CLEAR(tmp);
        if (!wid) goto done;
    }
    if (!truthy(wid)) { /* the Python path raises the record's error */
        result = Py_NewRef(Py_None);
        goto done;
    }
    if (ids == Py_None) Py_SETREF(ids, Py_NewRef(helpers[H_NO_IDS]));

    if (!(tmp = GET(rec, A_TITLE))) goto done;
    title = c_clean(tmp);
    Py_CLEAR(tmp);
    if (!title) goto done;
    if (!truthy(title)) {
        Py_CLEAR(title);
        if (!(tmp = GET(rec, A_DISPLAY_NAME))) goto done;
        title = c_clean(tmp);
        Py_CLEAR(tmp);
        if (!title) goto done;
    }
    if (!(raw_doi = GET(rec, A_DOI))) goto done;
    if (!(rec_doi = c_doi(raw_doi))) goto done;
    if (rec_doi != Py_None) {
        doi = Py_NewRef(rec_doi);
    } else {
        if (!(tmp = GET(ids, A_DOI))) goto done;
        doi = c_doi(tmp);
        Py_CLEAR(tmp);
        if (!doi) goto done;
    }
    if (PyUnicode_Check(doi) && PyUnicode_Tailmatch(doi, str_arxiv_doi, 0, PY_SSIZE_T_MAX, -1) == 1)
        arxiv = call1(H_ARXIV_FROM_DOI, doi);
    else
        arxiv = Py_NewRef(Py_None);
    if (!arxiv) goto done;

    if (!(primary = GET(rec, A_PRIMARY_LOCATION))) goto done;
    if (!(locations = PyList_New(0))) goto done;
    if (primary != Py_None && PyList_Append(locations, primary) < 0) goto done;
    if (!(tmp = GET(rec, A_LOCATIONS))) goto done;
    if (tmp != Py_None) {
        int t = truthy(tmp);
        if (t < 0) goto done;
        if (t) {
            PyObject *seq = PySequence_Fast(tmp, "locations must be a list");
            if (!seq) goto done;
            for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
                PyObject *loc = PySequence_Fast_GET_ITEM(seq, i);
                if (loc == primary) continue;
                int in = in_list(locations, loc);
                if (in < 0 || (!in && PyList_Append(locations, loc) < 0)) {
                    Py_DECREF(seq);
                    goto done;
                }
            }
            Py_DECREF(seq);
        }
    }
    Py_CLEAR(tmp);
    Py_ssize_t nloc = PyList_GET_SIZE(locations);

    /* cleaned source name and raw source name of every location */
    if (!(src_names = PyList_New(nloc)) || !(raw_names = PyList_New(nloc))) goto done;
    for (Py_ssize_t i = 0; i < nloc; i++) { /* (filled with None first: safe to free) */
        PyList_SET_ITEM(src_names, i, Py_NewRef(Py_None));
        PyList_SET_ITEM(raw_names, i, Py_NewRef(Py_None));
    }
    for (Py_ssize_t i = 0; i < nloc; i++) {
        PyObject *loc = PyList_GET_ITEM(locations, i);
        PyObject *src = GET(loc, A_SOURCE);
        if (!src) goto done;
        if (src != Py_None) {
            PyObject *dn = GET(src, A_DISPLAY_NAME);
            PyObject *name = dn ? c_clean(dn) : NULL;
            Py_XDECREF(dn);
            Py_DECREF(src);
            if (!name) goto done;
            PyList_SetItem(src_names, i, name);
        } else {
            Py_DECREF(src);
        }
        PyObject *rsn = GET(loc, A_RAW_SOURCE_NAME);
        if (!rsn) goto done;
        int t = truthy(rsn);
        if (t < 0) {
            Py_DECREF(rsn);
            goto done;
        }
        if (t) {
            PyObject *name = c_clean(rsn);
            Py_DECREF(rsn);
            if (!name) goto done;
            PyList_SetItem(raw_names, i, name);
        } else {
            Py_DECREF(rsn);
        }
    }

    /* venue and alternatives */
    for (Py_ssize_t i = 0; i < nloc && !venue; i++)
        if (truthy(PyList_GET_ITEM(src_names, i))) venue = Py_NewRef(PyList_GET_ITEM(src_names, i));
    if (!(hv = GET(rec, A_HOST_VENUE))) goto done;
    if (!venue && hv != Py_None) {
        if (!(tmp = GET(hv, A_DISPLAY_NAME))) goto done;
        venue = c_clean(tmp);
        Py_CLEAR(tmp);
        if (!venue) goto done;
        if (venue == Py_None) Py_CLEAR(venue);
    }
    for (Py_ssize_t i = 0; i < nloc && !venue; i++)
        if (truthy(PyList_GET_ITEM(raw_names, i))) venue = Py_NewRef(PyList_GET_ITEM(raw_names, i));
    if (!venue) venue = Py_NewRef(Py_None);

    if (!(venue_alt = PyList_New(0)) || !(kinds = PyDict_New())) goto done;
    for (Py_ssize_t i = 0; i < nloc; i++) {
        PyObject *loc = PyList_GET_ITEM(locations, i);
        PyObject *src_name = PyList_GET_ITEM(src_names, i);
        PyObject *raw_name = PyList_GET_ITEM(raw_names, i);
        PyObject *src = GET(loc, A_SOURCE);
        if (!src) goto done;
        if (src != Py_None) {
            if (!first_src) first_src = Py_NewRef(src);
            PyObject *abbr = NULL, *stype = NULL;
            int r = add_unless(venue_alt, Py_NewRef(src_name), venue);
            if (r == 0 && !(tmp = GET(src, A_ABBREVIATED_TITLE))) r = -1;
            if (r == 0 && !(abbr = truthy(tmp) ? c_clean(tmp) : Py_NewRef(Py_None))) r = -1;
            Py_CLEAR(tmp);
            if (r == 0) r = add_unless(venue_alt, Py_NewRef(abbr), venue);
            if (r == 0 && !(stype = GET(src, A_TYPE))) r = -1;
            if (r == 0 && truthy(stype)) { /* the names' kind: the source's type */
                r = set_kind(kinds, src_name, stype);
                if (r == 0) r = set_kind(kinds, abbr, stype);
                if (r == 0) r = set_kind(kinds, raw_name, stype);
            }
            Py_XDECREF(abbr);
            Py_XDECREF(stype);
            if (r < 0) {
                Py_DECREF(src);
                goto done;
            }
        }
        Py_DECREF(src);
        if (add_unless(venue_alt, Py_NewRef(raw_name), venue) < 0) goto done;
    }
    if (hv != Py_None) {
        const int hv_attrs[3] = {A_DISPLAY_NAME, A_ABBREVIATED_TITLE, A_PUBLISHER};
        for (int a = 0; a < 3; a++) {
            PyObject *name;
            if (!(tmp = GET(hv, hv_attrs[a]))) goto done;
            name = c_clean(tmp);
            Py_CLEAR(tmp);
            if (!name) goto done;
            int r = a == 2 ? set_kind(kinds, name, helpers[H_HOST_KIND]) : 0;
            if (r == 0) r = add_unless(venue_alt, name, venue); /* (steals name) */
            else Py_DECREF(name);
            if (r < 0) goto done;
        }
    }
    if (first_src) {
        PyObject *name;
        if (!(tmp = GET(first_src, A_HOST_ORGANIZATION_NAME))) goto done;
        name = c_clean(tmp);
        Py_CLEAR(tmp);
        if (!name) goto done;
        int r = set_kind(kinds, name, helpers[H_HOST_KIND]);
        if (r == 0) r = add_unless(venue_alt, name, venue);
        else Py_DECREF(name);
        if (r < 0) goto done;
    }
    { /* a journal or proceedings names the venue: the kinds change nothing, but for a record
       * without a host organisation the venue's own kind is kept (it names no publisher) */
        Py_ssize_t pos = 0, nk = PyDict_GET_SIZE(kinds), i = 0;
        PyObject *key, *value, *kept = NULL;
        int any_named = 0, any_host = 0;
        /* 1 for a name whose kind is a venue proper, else 0; -1 on error */
        signed char *is_named = nk ? PyMem_Calloc((size_t)nk, 1) : NULL;
        if (nk && !is_named) {
            PyErr_NoMemory();
            goto done;
        }
        while (PyDict_Next(kinds, &pos, &key, &value)) {
            int named = PySet_Contains(helpers[H_NAMED_KINDS], value);
            int host = named == 0 ? PyObject_RichCompareBool(value, helpers[H_HOST_KIND], Py_EQ) : 0;
            if (named > 0) { /* (a URL or "(No Title)" names no venue, whatever its type) */
                PyObject *is_name = call1(H_IS_VENUE_NAME, key);
                named = is_name ? PyObject_IsTrue(is_name) : -1;
                Py_XDECREF(is_name);
            }
            if (named < 0 || host < 0) {
                PyMem_Free(is_named);
                goto done;
            }
            is_named[i++] = (signed char)named;
            any_named |= named;
            any_host |= host;
        }
        if (any_named) {
            int bad = !(kept = PyDict_New());
            pos = 0;
            i = 0;
            while (!bad && !any_host && PyDict_Next(kinds, &pos, &key, &value)) {
                if (is_named[i] && PyDict_SetItem(kept, key, value) < 0) bad = 1;
                i++;
            }
            if (bad) {
                Py_XDECREF(kept);
                PyMem_Free(is_named);
                goto done;
            }
            Py_SETREF(kinds, kept);
        }
        PyMem_Free(is_named);
    }

    /* versions, urls, arXiv from locations */
    if (!(versions = PyList_New(0)) || !(urls = PyList_New(0))) goto done;
    if (!(year = GET(rec, A_PUBLICATION_YEAR))) goto done;
    for (Py_ssize_t i = 0; i < nloc; i++) {
        PyObject *loc = PyList_GET_ITEM(locations, i);
        PyObject *a = NULL, *landing = NULL, *pdf = NULL, *version = NULL, *kind = NULL;
        PyObject *ldoi = NULL, *v = NULL;
        int ok = 0;
        if (!(a = c_arxiv_of_location(loc))) goto loc_done;
        if (truthy(a) && arxiv == Py_None) Py_SETREF(arxiv, Py_NewRef(a));
        if (!(landing = GET(loc, A_LANDING_PAGE_URL)) || !(pdf = GET(loc, A_PDF_URL))) goto loc_done;
        if (add_unless(urls, Py_NewRef(landing), NULL) < 0) goto loc_done;
        if (add_unless(urls, Py_NewRef(pdf), NULL) < 0) goto loc_done;
        if (!(version = GET(loc, A_VERSION))) goto loc_done;
        kind = PyDict_GetItemWithError(helpers[H_VERSION_KIND], truthy(version) ? version : str_empty);
        if (!kind && PyErr_Occurred()) goto loc_done;
        kind = Py_NewRef(kind ? kind : version);
        ldoi = Py_NewRef(Py_None);
        if (truthy(landing)) {
            int has;
            if (PyUnicode_IS_ASCII(landing)) {
                has = ascii_icontains(landing, "doi.org/");
            } else {
                PyObject *low = PyObject_CallMethod(landing, "lower", NULL);
                if (!low) goto loc_done;
                has = PySequence_Contains(low, str_doi_org);
                Py_DECREF(low);
                if (has < 0) goto loc_done;
            }
            if (has) {
                int same = PyObject_RichCompareBool(landing, raw_doi, Py_EQ);
                if (same < 0) goto loc_done;
                Py_SETREF(ldoi, same ? Py_NewRef(rec_doi) : c_doi(landing));
                if (!ldoi) goto loc_done;
            }
        }
        PyObject *src = GET(loc, A_SOURCE);
        if (!src) goto loc_done;
        PyObject *lvenue = PyList_GET_ITEM(src != Py_None ? src_names : raw_names, i);
        Py_DECREF(src);
        int ta = truthy(a);
        if (ta) {
            int sub = kind == Py_None ? 1 : PyObject_RichCompareBool(kind, str_submitted, Py_EQ);
            if (sub < 0) goto loc_done;
            if (sub) Py_SETREF(kind, Py_NewRef(str_preprint));
        }
        int tk = truthy(kind);
        if (tk < 0) goto loc_done;
        if (!(tk || ta || truthy(ldoi))) {
            ok = 1;
            goto loc_done;
        }
        PyObject *vargs[5] = {i == 0 && primary != Py_None ? year : Py_None, lvenue, ldoi, a, kind};
        if (!(v = PyObject_Vectorcall(helpers[H_VERSION], vargs, 5, NULL))) goto loc_done;
        int in = in_list(versions, v);
        if (in < 0 || (!in && PyList_Append(versions, v) < 0)) goto loc_done;
        ok = 1;
    loc_done:
        Py_XDECREF(a);
        Py_XDECREF(landing);
        Py_XDECREF(pdf);
        Py_XDECREF(version);
        Py_XDECREF(kind);
        Py_XDECREF(ldoi);
        Py_XDECREF(v);
        if (!ok) goto done;
    }
    if (hv != Py_None) {
        if (!(tmp = GET(hv, A_URL))) goto done;
        int r = add_unless(urls, Py_NewRef(tmp), NULL);
        Py_CLEAR(tmp);
        if (r < 0) goto done;
    }

    if (!(authors = PyList_New(0))) goto done;
    if (!(tmp = GET(rec, A_AUTHORSHIPS))) goto done;
    if (truthy(tmp)) {
        PyObject *seq = PySequence_Fast(tmp, "authorships must be a list");
        if (!seq) goto done;
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
            PyObject *au = PySequence_Fast_GET_ITEM(seq, i);
            PyObject *ref = NULL, *raw = NULL, *name = NULL, *orcid = NULL, *x = NULL;
            PyObject *author = NULL;
            int ok = 0;
            if (!(ref = GET(au, A_AUTHOR)) || !(x = GET(au, A_RAW_AUTHOR_NAME))) goto au_done;
            if (!(raw = c_clean(x))) goto au_done;
            Py_CLEAR(x);
            if (ref == Py_None) {
                name = Py_NewRef(raw);
                orcid = Py_NewRef(Py_None);
            } else {
                if (!(x = GET(ref, A_DISPLAY_NAME)) || !(name = c_clean(x))) goto au_done;
                Py_CLEAR(x);
                if (!truthy(name)) Py_SETREF(name, Py_NewRef(raw));
                if (!(x = GET(ref, A_ORCID)) || !(orcid = c_orcid(x))) goto au_done;
                Py_CLEAR(x);
            }
            if (!truthy(name)) {
                ok = 1;
                goto au_done;
            }
            int ne = truthy(raw) ? PyObject_RichCompareBool(raw, name, Py_NE) : 0;
            if (ne < 0) goto au_done;
            PyObject *aargs[3] = {name, ne ? raw : Py_None, orcid};
            if (!(author = PyObject_Vectorcall(helpers[H_AUTHOR], aargs, 3, NULL))) goto au_done;
            if (PyList_Append(authors, author) < 0) goto au_done;
            ok = 1;
        au_done:
            Py_XDECREF(ref);
            Py_XDECREF(raw);
            Py_XDECREF(name);
            Py_XDECREF(orcid);
            Py_XDECREF(x);
            Py_XDECREF(author);
            if (!ok) {
                Py_DECREF(seq);
                goto done;
            }
        }
        Py_DECREF(seq);
    }
    Py_CLEAR(tmp);

    if (read_abstract && inverted != Py_None) {
        if (!(abstract = c_abstract_text(inverted))) goto done;
    } else {
        abstract = Py_NewRef(Py_None);
    }
    if (read_abstract && abstract == Py_None) {
        if (!(tmp = GET(rec, A_ABSTRACT_INVERTED_INDEX_V3))) goto done;
        if (tmp != Py_None) Py_SETREF(abstract, call1(H_ABSTRACT_FROM_INDEX, tmp));
        Py_CLEAR(tmp);
        if (!abstract) goto done;
    }
    if (read_abstract && abstract == Py_None) {
        if (!(tmp = GET(rec, A_ABSTRACT))) goto done;
        Py_SETREF(abstract, c_clean(tmp));
        Py_CLEAR(tmp);
        if (!abstract) goto done;
    }
    if (!(tmp = GET(rec, A_UPDATED_DATE))) goto done;
    if (truthy(tmp))
        updated = PySequence_GetSlice(tmp, 0, 10);
    else
        updated = Py_NewRef(Py_None);
    Py_CLEAR(tmp);
    if (!updated) goto done;

    if (!(tmp = GET(ids, A_PMID)) || !(pmid = unless_none(H_PMID, tmp))) goto done;
    Py_CLEAR(tmp);
    if (!(tmp = GET(ids, A_PMCID)) || !(pmcid = unless_none(H_PMCID, tmp))) goto done;
    Py_CLEAR(tmp);
    if (!(tmp = GET(ids, A_MAG)) || !(mag = unless_none(H_MAG, tmp))) goto done;
    Py_CLEAR(tmp);
    if (!(type = GET(rec, A_TYPE))) goto done;
    if (!truthy(type)) Py_SETREF(type, Py_NewRef(Py_None));
    if (!(language = GET(rec, A_LANGUAGE))) goto done;
    if (!truthy(language)) Py_SETREF(language, Py_NewRef(Py_None));
    if (!(tmp = GET(rec, A_IS_RETRACTED))) goto done;
    {
        int t = PyObject_IsTrue(tmp);
        Py_CLEAR(tmp);
        if (t < 0) goto done;
        is_retracted = Py_NewRef(t ? Py_True : Py_False);
    }
    {
        PyObject *wargs[20] = {wid,     title,  authors,   year,   venue, venue_alt, type,
                               doi,     pmid,   pmcid,     arxiv,  mag,   urls,      abstract,
                               is_retracted, versions, language, updated, source, kinds};
        result = PyObject_Vectorcall(helpers[H_WORK], wargs, 20, NULL);
    }
done:
    Py_XDECREF(tmp);
    Py_XDECREF(ids);
    Py_XDECREF(wid);
    Py_XDECREF(title);
    Py_XDECREF(raw_doi);
    Py_XDECREF(rec_doi);
    Py_XDECREF(doi);
    Py_XDECREF(arxiv);
    Py_XDECREF(primary);
    Py_XDECREF(locations);
    Py_XDECREF(src_names);
    Py_XDECREF(raw_names);
    Py_XDECREF(venue);
    Py_XDECREF(hv);
    Py_XDECREF(venue_alt);
    Py_XDECREF(first_src);
    Py_XDECREF(versions);
    Py_XDECREF(urls);
    Py_XDECREF(authors);
    Py_XDECREF(abstract);
    Py_XDECREF(updated);
    Py_XDECREF(year);
    Py_XDECREF(pmid);
    Py_XDECREF(pmcid);
    Py_XDECREF(mag);
    Py_XDECREF(type);
    Py_XDECREF(language);
    Py_XDECREF(is_retracted);
    Py_XDECREF(kinds);
    return result;
}

/* ------------------------------------------------------------------ the reference parser's CRF
 *
 * crf_viterbi(seq, ids, state, trans) -> list[int]: the best label sequence of the linear-chain
 * CRF of citejudge.readers.freetext._crf for ``seq`` (per token, a list or tuple of its features
 * as UTF-8 bytes, or of parts: tuples or lists of them, read in order), the labels CRFsuite's
 * tagger gives for the same features (joined) and model:
 * - a token's score for label y starts at 0.0 and adds state[a * L + y] for each of its
 *   features, in their order (crf1dt_state_score adds the same weights in the same order, so
 *   the sums are the same doubles); ``ids`` maps a feature to its attribute id a, and a
 *   feature the model lacks adds nothing (CRFsuite drops it). As CRFsuite, a feature is read
 *   up to its first NUL byte.
 * - Viterbi as crf1dc_viterbi: trans[i * L + j] from label i to j, the first of equal scores
 *   wins, at each step and at the end.
 * Raises TypeError for a feature that is not bytes and ValueError for buffers that do not
 * agree; the caller then has CRFsuite decode (readers/freetext/_crf.py's tag_tokens). */
static PyObject *crf_viterbi(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *seq, *ids;
    Py_buffer sb, tb;
    if (!PyArg_ParseTuple(args, "O!O!y*y*", &PyList_Type, &seq, &PyDict_Type, &ids, &sb, &tb))
        return NULL;
    PyObject *result = NULL;
    double *score = NULL, *alpha = NULL;
    int *back = NULL;
    Py_ssize_t nt = tb.len / (Py_ssize_t)sizeof(double), L = 0;
    while ((L + 1) * (L + 1) <= nt) L++;
    if (L < 1 || L * L != nt || tb.len % (Py_ssize_t)sizeof(double) ||
        sb.len % (L * (Py_ssize_t)sizeof(double))) {
        PyErr_SetString(PyExc_ValueError, "crf_viterbi: weight buffers do not agree");
        goto done;
    }
    const Py_ssize_t A = sb.len / (L * (Py_ssize_t)sizeof(double));
    const double *W = sb.buf, *T = tb.buf;
    const Py_ssize_t n = PyList_GET_SIZE(seq);
    result = PyList_New(n);
    if (!result || n == 0) goto done;
    score = calloc((size_t)(n * L), sizeof(double));
    alpha = malloc((size_t)(n * L) * sizeof(double));
    back = malloc((size_t)(n * L) * sizeof(int));
    if (!score || !alpha || !back) {
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t t = 0; t < n; t++) {
        PyObject *feats = PyList_GET_ITEM(seq, t);
        if (!PyList_Check(feats) && !PyTuple_Check(feats)) {
            PyErr_SetString(PyExc_TypeError, "crf_viterbi: a token's features are not a list");
            goto fail;
        }
        double *s = score + t * L;
        Py_ssize_t nparts = PySequence_Fast_GET_SIZE(feats);
        PyObject **parts = PySequence_Fast_ITEMS(feats);
        /* an item of a token: a feature, or a part (a tuple or list of features) */
        for (Py_ssize_t p = 0; p < nparts; p++) {
            PyObject *part = parts[p], **items = &parts[p];
            Py_ssize_t nitems = 1;
            if (PyTuple_Check(part) || PyList_Check(part)) {
                nitems = PySequence_Fast_GET_SIZE(part);
                items = PySequence_Fast_ITEMS(part);
            }
            for (Py_ssize_t k = 0; k < nitems; k++) {
                PyObject *f = items[k];
                if (!PyBytes_Check(f)) {
                    PyErr_SetString(PyExc_TypeError, "crf_viterbi: a feature is not bytes");
                    goto fail;
                }
                PyObject *v = PyDict_GetItemWithError(ids, f); /* borrowed */
                if (!v) {
                    if (PyErr_Occurred()) goto fail;
                    const char *buf = PyBytes_AS_STRING(f);
                    const char *nul = memchr(buf, 0, (size_t)PyBytes_GET_SIZE(f));
                    if (!nul) continue; /* not in the model */
                    PyObject *cut = PyBytes_FromStringAndSize(buf, nul - buf);
                    if (!cut) goto fail;
                    v = PyDict_GetItemWithError(ids, cut);
                    Py_DECREF(cut);
                    if (!v) {
                        if (PyErr_Occurred()) goto fail;
                        continue;
                    }
                }
                long a = PyLong_AsLong(v);
                if (a == -1 && PyErr_Occurred()) goto fail;
                if (a < 0 || a >= A) {
                    PyErr_SetString(PyExc_ValueError, "crf_viterbi: an attribute id is out of range");
                    goto fail;
                }
                const double *w = W + a * L;
                for (Py_ssize_t y = 0; y < L; y++) s[y] += w[y];
            }
        }
    }
    for (Py_ssize_t y = 0; y < L; y++) alpha[y] = score[y];
    for (Py_ssize_t t = 1; t < n; t++) {
        const double *prev = alpha + (t - 1) * L, *st = score + t * L;
        double *cur = alpha + t * L;
        for (Py_ssize_t j = 0; j < L; j++) {
            double best = -DBL_MAX;
            int arg = 0;
            for (Py_ssize_t i = 0; i < L; i++) {
                double sc = prev[i] + T[i * L + j];
                if (best < sc) {
                    best = sc;
                    arg = (int)i;
                }
            }
            back[t * L + j] = arg;
            cur[j] = best + st[j];
        }
    }
    const double *last = alpha + (n - 1) * L;
    double best = -DBL_MAX;
    int y = 0;
    for (Py_ssize_t i = 0; i < L; i++) {
        if (best < last[i]) {
            best = last[i];
            y = (int)i;
        }
    }
    for (Py_ssize_t t = n - 1; t >= 0; t--) {
        PyObject *label = PyLong_FromLong(y);
        if (!label) goto fail;
        PyList_SET_ITEM(result, t, label);
        if (t > 0) y = back[t * L + y];
    }
    goto done;
fail:
    Py_CLEAR(result);
done:
    free(score);
    free(alpha);
    free(back);
    PyBuffer_Release(&sb);
    PyBuffer_Release(&tb);
    return result;
}

static PyMethodDef methods[] = {
    {"crf_viterbi", crf_viterbi, METH_VARARGS,
     "crf_viterbi(seq, ids, state, trans) -> list[int]\n\n"
     "The label ids CRFsuite's tagger gives the token features seq (lists of bytes) under the\n"
     "reference parser's weights (readers/freetext/_crf.py)."},
    {"inverted_abstract", inverted_abstract, METH_O,
     "inverted_abstract(raw: bytes) -> str | None\n\n"
     "The abstract an OpenAlex inverted index (its raw JSON) spells; ValueError for a shape\n"
     "other than {\"word\": [positions]} with every position in place."},
    {"clean_spaces", clean_spaces, METH_O,
     "clean_spaces(text: str) -> str | None\n\n"
     "The whitespace clean-up of readers/openalex.py's _clean (markup already stripped)."},
    {"configure_blocks", configure_blocks, METH_VARARGS,
     "configure_blocks(stopwords, block_words, short_title, max_token) -> None\n\n"
     "The title-block parameters of citejudge.index.build, for title_block_hashes()."},
    {"configure_convert", configure_convert, METH_O,
     "configure_convert(helpers: dict) -> None\n\n"
     "The Python helpers and types of readers/openalex.py that convert() calls."},
    {"convert", convert, METH_VARARGS,
     "convert(rec, source, inverted, abstract) -> Work | None\n\n"
     "readers/openalex.py's _convert of an _OAWorkRaw (abstract true) or an _OAWorkMeta;\n"
     "None: take the Python path."},
    {"key_hashes", key_hashes, METH_VARARGS,
     "key_hashes(work, folded_title) -> list[int] | None\n\n"
     "citejudge.index.build's key_hashes of a Work; None: take the Python path."},
    {"title_block_hashes", title_block_hashes, METH_O,
     "title_block_hashes(folded_title: str) -> list[int]\n\n"
     "CRC-32 of each title block key of a folded title, in the keys' sorted order."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "citejudge._native",
    "The snapshot reader's hot path in C (see citejudge.readers.openalex).", -1, methods,
};

PyMODINIT_FUNC PyInit__native(void) {
    crc_init();
    plain_init();
    if (convert_init() < 0 || keys_init() < 0) return NULL;
    return PyModule_Create(&module);
}
