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
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
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

static uint32_t crc_table[256];

static void crc_init(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320U ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

static uint32_t crc_update(uint32_t c, const unsigned char *s, size_t n) {
    for (size_t i = 0; i < n; i++) c = crc_table[(c ^ s[i]) & 0xFF] ^ (c >> 8);
    return c;
}

#define MAX_STOP 256
#define MAX_WORDS 512
static char stop_buf[4096];
static size_t stop_off[MAX_STOP], stop_len[MAX_STOP], n_stop = 0;
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
    Py_DECREF(seq);
    n_stop = (size_t)n;
    cfg_block = block;
    cfg_short = short_title;
    cfg_max_token = max_token;
    Py_RETURN_NONE;
}

static int is_stopword(const char *w, size_t k) {
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


/* --- whitespace clean-up -------------------------------------------------------------------
 *
 * clean_spaces(s) is the second half of readers/openalex.py's _clean (after markup is
 * stripped): runs of whitespace become one space when the text has a double space or a
 * character that is not printable, and a double space, a line break, a tab, a carriage
 * return or a no-break space; then the text is stripped, and None stands for an empty one.
 * Whitespace is what str.isspace() and re's \s call so (Py_UNICODE_ISSPACE). */

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
    if ((dbl || nonprint) && (dbl || special)) {
        Py_UCS4 *buf = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(Py_UCS4));
        if (!buf) return PyErr_NoMemory();
        Py_ssize_t m = 0;
        int in_space = 1; /* (leading whitespace is dropped) */
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_UCS4 ch = PyUnicode_READ(kind, data, i);
            if (Py_UNICODE_ISSPACE(ch)) {
                if (!in_space) buf[m++] = ' ';
                in_space = 1;
            } else {
                buf[m++] = ch;
                in_space = 0;
            }
        }
        if (m && buf[m - 1] == ' ') m--; /* (trailing whitespace too) */
        PyObject *out = m ? PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, m) : NULL;
        PyMem_Free(buf);
        if (!m) Py_RETURN_NONE;
        return out;
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

static PyMethodDef methods[] = {
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
    return PyModule_Create(&module);
}
