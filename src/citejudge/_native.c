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

typedef struct {
    char *buf; /* decoded keys, back to back */
    size_t len, cap;
    size_t *key_off; /* per entry: its key in buf */
    size_t *key_len;
    size_t *pos_start; /* per entry: its positions in pos */
    size_t *pos_end;
    size_t n, ncap;
    int64_t *pos;
    size_t npos, poscap;
} Parsed;

static void parsed_free(Parsed *p) {
    free(p->buf);
    free(p->key_off);
    free(p->key_len);
    free(p->pos_start);
    free(p->pos_end);
    free(p->pos);
}

static int grow(void **ptr, size_t *cap, size_t need, size_t item) {
    if (need <= *cap) return 0;
    size_t cap2 = *cap ? *cap : 16;
    while (cap2 < need) cap2 *= 2;
    void *q = realloc(*ptr, cap2 * item);
    if (!q) return -1;
    *ptr = q;
    *cap = cap2;
    return 0;
}

static int put_bytes(Parsed *p, const char *s, size_t k) {
    if (grow((void **)&p->buf, &p->cap, p->len + k, 1)) return -1;
    memcpy(p->buf + p->len, s, k);
    p->len += k;
    return 0;
}

static int put_utf8(Parsed *p, uint32_t c) {
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
    return put_bytes(p, out, k);
}

#define FAIL (-1) /* a shape left to the general reader */
#define MAX_SPAN_FACTOR 4
#define MAX_SPAN_SLACK 4096
#define NOMEM (-2)

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
        while (s < end && *s != '"' && *s != '\\' && (unsigned char)*s >= 0x20 &&
               (unsigned char)*s < 0x80)
            s++;
        if (s > run && put_bytes(p, run, (size_t)(s - run))) return NOMEM;
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
            if (put_bytes(p, s, k)) return NOMEM;
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
                if (put_utf8(p, u)) return NOMEM;
                continue;
            }
            default: return FAIL;
        }
        if (put_bytes(p, &lit, 1)) return NOMEM;
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
        if (grow((void **)&p->pos, &p->poscap, p->npos + 1, sizeof(int64_t))) return NOMEM;
        p->pos[p->npos++] = v;
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
    if (p->n == p->ncap) {
        size_t cap = p->ncap ? p->ncap * 2 : 64;
        size_t *a = realloc(p->key_off, cap * sizeof(size_t));
        if (!a) return NOMEM;
        p->key_off = a;
        a = realloc(p->key_len, cap * sizeof(size_t));
        if (!a) return NOMEM;
        p->key_len = a;
        a = realloc(p->pos_start, cap * sizeof(size_t));
        if (!a) return NOMEM;
        p->pos_start = a;
        a = realloc(p->pos_end, cap * sizeof(size_t));
        if (!a) return NOMEM;
        p->pos_end = a;
        p->ncap = cap;
    }
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
    int r = parse_object(&p, s, end);
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
    if (span > MAX_SPAN_FACTOR * size + MAX_SPAN_SLACK) {
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

static PyMethodDef methods[] = {
    {"inverted_abstract", inverted_abstract, METH_O,
     "inverted_abstract(raw: bytes) -> str | None\n\n"
     "The abstract an OpenAlex inverted index (its raw JSON) spells; ValueError for a shape\n"
     "other than {\"word\": [positions]} with every position in place."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "citejudge._native",
    "The snapshot reader's hot path in C (see citejudge.readers.openalex).", -1, methods,
};

PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&module); }
