package llamaserver

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
)

// This file reads and writes GGUF, llama.cpp's model format (version 3):
// a header, typed key-value metadata, tensor descriptions, then the
// tensors' data, each aligned to 32 bytes. Only what WriteModel needs is
// here: metadata is copied as raw bytes, tensors are F32 or F16.

const (
	ggufMagic     = "GGUF"
	ggufVersion   = 3
	ggufAlignment = 32
)

// GGUF metadata value types.
const (
	tUint8 uint32 = iota
	tInt8
	tUint16
	tInt16
	tUint32
	tInt32
	tFloat32
	tBool
	tString
	tArray
	tUint64
	tInt64
	tFloat64
)

// ggml tensor types used here.
const (
	ggmlF32 uint32 = 0
	ggmlF16 uint32 = 1
)

// kv is one metadata entry: its key, type and value as encoded in the file.
type kv struct {
	key string
	typ uint32
	raw []byte
}

// fixedSize is the encoded size of a scalar type, 0 for strings and arrays.
func fixedSize(typ uint32) int {
	switch typ {
	case tUint8, tInt8, tBool:
		return 1
	case tUint16, tInt16:
		return 2
	case tUint32, tInt32, tFloat32:
		return 4
	case tUint64, tInt64, tFloat64:
		return 8
	}
	return 0
}

// ggufReader reads the little-endian fields of a GGUF file.
type ggufReader struct{ r *bufio.Reader }

func (g ggufReader) u32() (uint32, error) {
	var b [4]byte
	_, err := io.ReadFull(g.r, b[:])
	return binary.LittleEndian.Uint32(b[:]), err
}

func (g ggufReader) u64() (uint64, error) {
	var b [8]byte
	_, err := io.ReadFull(g.r, b[:])
	return binary.LittleEndian.Uint64(b[:]), err
}

func (g ggufReader) str() (string, error) {
	n, err := g.u64()
	if err != nil {
		return "", err
	}
	if n > 1<<20 {
		return "", fmt.Errorf("a string of %d bytes", n)
	}
	b := make([]byte, n)
	_, err = io.ReadFull(g.r, b)
	return string(b), err
}

// value reads one value of type typ and returns its encoded bytes.
func (g ggufReader) value(typ uint32, out []byte) ([]byte, error) {
	if n := fixedSize(typ); n > 0 {
		b := make([]byte, n)
		if _, err := io.ReadFull(g.r, b); err != nil {
			return nil, err
		}
		return append(out, b...), nil
	}
	switch typ {
	case tString:
		s, err := g.str()
		if err != nil {
			return nil, err
		}
		return appendString(out, s), nil
	case tArray:
		elem, err := g.u32()
		if err != nil {
			return nil, err
		}
		n, err := g.u64()
		if err != nil {
			return nil, err
		}
		out = binary.LittleEndian.AppendUint32(out, elem)
		out = binary.LittleEndian.AppendUint64(out, n)
		for i := uint64(0); i < n; i++ {
			if out, err = g.value(elem, out); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown GGUF value type %d", typ)
}

// readMetadata reads the metadata of the GGUF file at path.
func readMetadata(path string) ([]kv, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	g := ggufReader{bufio.NewReaderSize(f, 1<<20)}
	magic := make([]byte, 4)
	if _, err := io.ReadFull(g.r, magic); err != nil || string(magic) != ggufMagic {
		return nil, fmt.Errorf("%s is not a GGUF file", path)
	}
	version, err := g.u32()
	if err != nil || version < 2 {
		return nil, fmt.Errorf("%s: GGUF version %d, want 2 or 3", path, version)
	}
	if _, err := g.u64(); err != nil { // tensor count: a vocabulary file's tensors are not needed
		return nil, err
	}
	count, err := g.u64()
	if err != nil {
		return nil, err
	}
	var kvs []kv
	for i := uint64(0); i < count; i++ {
		key, err := g.str()
		if err != nil {
			return nil, fmt.Errorf("%s: metadata entry %d: %v", path, i, err)
		}
		typ, err := g.u32()
		if err != nil {
			return nil, err
		}
		raw, err := g.value(typ, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: metadata %s: %v", path, key, err)
		}
		kvs = append(kvs, kv{key: key, typ: typ, raw: raw})
	}
	return kvs, nil
}

// stringArray decodes an encoded array of strings.
func stringArray(e kv) ([]string, error) {
	n, err := arrayLen(e)
	if err != nil {
		return nil, err
	}
	if binary.LittleEndian.Uint32(e.raw[0:4]) != tString {
		return nil, fmt.Errorf("%s is not an array of strings", e.key)
	}
	out := make([]string, 0, n)
	b := e.raw[12:]
	for i := 0; i < n; i++ {
		if len(b) < 8 {
			return nil, fmt.Errorf("%s is cut short", e.key)
		}
		l := binary.LittleEndian.Uint64(b)
		if uint64(len(b)-8) < l {
			return nil, fmt.Errorf("%s is cut short", e.key)
		}
		out = append(out, string(b[8:8+l]))
		b = b[8+l:]
	}
	return out, nil
}

// arrayLen is the element count of an encoded array value.
func arrayLen(e kv) (int, error) {
	if e.typ != tArray || len(e.raw) < 12 {
		return 0, fmt.Errorf("%s is not an array", e.key)
	}
	return int(binary.LittleEndian.Uint64(e.raw[4:12])), nil
}

func appendString(out []byte, s string) []byte {
	out = binary.LittleEndian.AppendUint64(out, uint64(len(s)))
	return append(out, s...)
}

func kvString(key, v string) kv { return kv{key, tString, appendString(nil, v)} }

func kvU32(key string, v uint32) kv {
	return kv{key, tUint32, binary.LittleEndian.AppendUint32(nil, v)}
}

func kvF32(key string, v float32) kv {
	return kv{key, tFloat32, binary.LittleEndian.AppendUint32(nil, math.Float32bits(v))}
}

// tensor is one weight: its name, dimensions (innermost first, as ggml
// counts them), type and a generator of its values.
type tensor struct {
	name string
	dims []uint64
	typ  uint32
	fill func(i int) float32
}

func (t tensor) elems() int {
	n := 1
	for _, d := range t.dims {
		n *= int(d)
	}
	return n
}

func (t tensor) size() uint64 {
	if t.typ == ggmlF16 {
		return uint64(t.elems()) * 2
	}
	return uint64(t.elems()) * 4
}

func align(n uint64) uint64 { return (n + ggufAlignment - 1) / ggufAlignment * ggufAlignment }

// writeGGUF writes a version 3 GGUF file with the given metadata and tensors.
func writeGGUF(path string, kvs []kv, tensors []tensor) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	var hdr []byte
	hdr = append(hdr, ggufMagic...)
	hdr = binary.LittleEndian.AppendUint32(hdr, ggufVersion)
	hdr = binary.LittleEndian.AppendUint64(hdr, uint64(len(tensors)))
	hdr = binary.LittleEndian.AppendUint64(hdr, uint64(len(kvs)))
	for _, e := range kvs {
		hdr = appendString(hdr, e.key)
		hdr = binary.LittleEndian.AppendUint32(hdr, e.typ)
		hdr = append(hdr, e.raw...)
	}
	var off uint64
	for _, t := range tensors {
		hdr = appendString(hdr, t.name)
		hdr = binary.LittleEndian.AppendUint32(hdr, uint32(len(t.dims)))
		for _, d := range t.dims {
			hdr = binary.LittleEndian.AppendUint64(hdr, d)
		}
		hdr = binary.LittleEndian.AppendUint32(hdr, t.typ)
		hdr = binary.LittleEndian.AppendUint64(hdr, off)
		off = align(off + t.size())
	}
	hdr = append(hdr, make([]byte, align(uint64(len(hdr)))-uint64(len(hdr)))...)
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	buf := make([]byte, 0, 1<<16)
	for _, t := range tensors {
		n := t.elems()
		for i := 0; i < n; i++ {
			v := t.fill(i)
			if t.typ == ggmlF16 {
				buf = binary.LittleEndian.AppendUint16(buf, f16(v))
			} else {
				buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
			}
			if len(buf) >= 1<<16-4 {
				if _, err := w.Write(buf); err != nil {
					return err
				}
				buf = buf[:0]
			}
		}
		pad := align(t.size()) - t.size()
		buf = append(buf, make([]byte, pad)...)
	}
	if _, err := w.Write(buf); err != nil {
		return err
	}
	return w.Flush()
}

// f16 converts v to IEEE half precision, for the small values here:
// magnitudes below 2⁻¹⁴ become zero, and there are no infinities.
func f16(v float32) uint16 {
	b := math.Float32bits(v)
	sign := uint16(b>>16) & 0x8000
	exp := int((b>>23)&0xff) - 127 + 15
	mant := b & 0x7fffff
	switch {
	case exp <= 0:
		return sign
	case exp >= 31:
		return sign | 0x7bff
	}
	return sign | uint16(exp)<<10 | uint16(mant>>13)
}

// Model is the shape of the model WriteModel generates.
type Model struct {
	Embedding   int // n_embd
	Heads       int // attention heads (and key-value heads)
	FeedForward int // the feed-forward width
	Blocks      int // transformer blocks
	ContextLen  int // the context length the model declares
	Seed        uint64
}

// DefaultModel is small enough that the server answers at once on a
// loaded machine: the vocabulary dominates its size.
var DefaultModel = Model{Embedding: 32, Heads: 2, FeedForward: 64, Blocks: 1, ContextLen: 4096, Seed: 1}

// WriteModel writes to path a llama-architecture GGUF with m's shape and
// seeded random weights, the tokenizer of the vocabulary-only GGUF at
// vocabPath and template as its chat template.
//
// Random weights alone make a model that, greedy, repeats one token (a
// newline, with the default seed) for ever; a grammar that allows
// whitespace between its parts then never completes. So the output layer
// is not random: every token embedding carries a constant in its first
// dimension, which the one small block barely changes, and the output
// layer reads only that dimension, with a weight per token: highest for
// the end-of-turn tokens, then the Qwen template's <tool_call>, very low
// for tokens of whitespace only, zero for the rest. Greedy, the model ends
// a free answer at once (an empty answer, and never a tool call it was
// not forced to make); under a grammar it takes a token the grammar allows
// that is not whitespace, opening a tool call where one may be made (and a
// newline after <tool_call>, as the template spells it), so JSON for a
// schema or a forced tool call comes out whole in a few tokens.
func WriteModel(path, vocabPath, template string, m Model) error {
	src, err := readMetadata(vocabPath)
	if err != nil {
		return err
	}
	kvs := []kv{
		kvString("general.architecture", "llama"),
		kvString("general.name", "wfrun-tiny-random"),
		kvU32("general.alignment", ggufAlignment),
		kvU32("llama.context_length", uint32(m.ContextLen)),
		kvU32("llama.embedding_length", uint32(m.Embedding)),
		kvU32("llama.block_count", uint32(m.Blocks)),
		kvU32("llama.feed_forward_length", uint32(m.FeedForward)),
		kvU32("llama.attention.head_count", uint32(m.Heads)),
		kvU32("llama.attention.head_count_kv", uint32(m.Heads)),
		kvU32("llama.rope.dimension_count", uint32(m.Embedding/m.Heads)),
		kvF32("llama.rope.freq_base", 10000),
		kvF32("llama.attention.layer_norm_rms_epsilon", 1e-5),
	}
	var tokens []string
	for _, e := range src {
		if !strings.HasPrefix(e.key, "tokenizer.") || e.key == "tokenizer.chat_template" {
			continue
		}
		if e.key == "tokenizer.ggml.tokens" {
			if tokens, err = stringArray(e); err != nil {
				return err
			}
		}
		kvs = append(kvs, e)
	}
	vocab := len(tokens)
	if vocab == 0 {
		return errors.New(vocabPath + " has no tokenizer.ggml.tokens")
	}
	if err := addQwen25Tokens(kvs, tokens); err != nil {
		return err
	}
	kvs = append(kvs, kvU32("llama.vocab_size", uint32(vocab)), kvString("tokenizer.chat_template", template))

	preference := make([]float32, vocab)
	for i, tok := range tokens {
		preference[i] = tokenPreference(tok)
	}
	// The Qwen template's tool call opens with "<tool_call>\n", but its
	// grammar also lets "<tool_call>" stand in free text, and a newline is
	// whitespace: a second constant, carried only by <tool_call>, makes a
	// newline the one token that follows it.
	toolCall, newline := slices.Index(tokens, "<tool_call>"), slices.Index(tokens, "Ċ")
	rng := rand.New(rand.NewPCG(m.Seed, m.Seed^0x9e3779b97f4a7c15))
	random := func(scale float32) func(int) float32 {
		return func(int) float32 { return (rng.Float32()*2 - 1) * scale }
	}
	one := func(int) float32 { return 1 }
	e, ff := uint64(m.Embedding), uint64(m.FeedForward)
	tensors := []tensor{
		{"token_embd.weight", []uint64{e, uint64(vocab)}, ggmlF16, func(i int) float32 {
			switch i % m.Embedding {
			case 0:
				return 4 // the constant the output layer reads
			case 1:
				if i/m.Embedding == toolCall {
					return 4
				}
				return 0
			}
			return (rng.Float32()*2 - 1) * 0.5
		}},
		{"output_norm.weight", []uint64{e}, ggmlF32, one},
		{"output.weight", []uint64{e, uint64(vocab)}, ggmlF16, func(i int) float32 {
			switch i % m.Embedding {
			case 0:
				return preference[i/m.Embedding]
			case 1:
				if i/m.Embedding == newline {
					return 20
				}
			}
			return 0
		}},
	}
	const w = 0.05 // small, so that the block does not drown the constant
	for b := 0; b < m.Blocks; b++ {
		p := fmt.Sprintf("blk.%d.", b)
		tensors = append(tensors,
			tensor{p + "attn_norm.weight", []uint64{e}, ggmlF32, one},
			tensor{p + "attn_q.weight", []uint64{e, e}, ggmlF32, random(w)},
			tensor{p + "attn_k.weight", []uint64{e, e}, ggmlF32, random(w)},
			tensor{p + "attn_v.weight", []uint64{e, e}, ggmlF32, random(w)},
			tensor{p + "attn_output.weight", []uint64{e, e}, ggmlF32, random(w)},
			tensor{p + "ffn_norm.weight", []uint64{e}, ggmlF32, one},
			tensor{p + "ffn_gate.weight", []uint64{e, ff}, ggmlF32, random(w)},
			tensor{p + "ffn_up.weight", []uint64{e, ff}, ggmlF32, random(w)},
			tensor{p + "ffn_down.weight", []uint64{ff, e}, ggmlF32, random(w)},
		)
	}
	return writeGGUF(path, kvs, tensors)
}

// Token types of tokenizer.ggml.token_type.
const (
	tokenControl     int32 = 3
	tokenUserDefined int32 = 4
)

// qwen25Added are the tokens Qwen2.5's tokenizer adds after <|im_end|>,
// which llama.cpp's ggml-vocab-qwen2.gguf (Qwen2's) leaves as padding:
// without <tool_call> and </tool_call> the Qwen2.5 template's tool calls
// would be spelled out character by character, as no Qwen2.5 model does.
// The control tokens are rendered only as tokens; the others are text.
var qwen25Added = []struct {
	text string
	typ  int32
}{
	{"<|object_ref_start|>", tokenControl}, {"<|object_ref_end|>", tokenControl},
	{"<|box_start|>", tokenControl}, {"<|box_end|>", tokenControl},
	{"<|quad_start|>", tokenControl}, {"<|quad_end|>", tokenControl},
	{"<|vision_start|>", tokenControl}, {"<|vision_end|>", tokenControl},
	{"<|vision_pad|>", tokenControl}, {"<|image_pad|>", tokenControl}, {"<|video_pad|>", tokenControl},
	{"<tool_call>", tokenUserDefined}, {"</tool_call>", tokenUserDefined},
	{"<|fim_prefix|>", tokenUserDefined}, {"<|fim_middle|>", tokenUserDefined},
	{"<|fim_suffix|>", tokenUserDefined}, {"<|fim_pad|>", tokenUserDefined},
	{"<|repo_name|>", tokenUserDefined}, {"<|file_sep|>", tokenUserDefined},
}

// addQwen25Tokens puts qwen25Added in place of the padding that follows
// <|im_end|>, in tokens and in the encoded tokens and token_type entries
// of kvs. A vocabulary without that padding is left as it is.
func addQwen25Tokens(kvs []kv, tokens []string) error {
	im := slices.Index(tokens, "<|im_end|>")
	if im < 0 || im+len(qwen25Added) >= len(tokens) || !strings.HasPrefix(tokens[im+1], "[PAD") {
		return nil
	}
	for i, a := range qwen25Added {
		tokens[im+1+i] = a.text
	}
	for i := range kvs {
		switch kvs[i].key {
		case "tokenizer.ggml.tokens":
			raw := binary.LittleEndian.AppendUint32(nil, tString)
			raw = binary.LittleEndian.AppendUint64(raw, uint64(len(tokens)))
			for _, t := range tokens {
				raw = appendString(raw, t)
			}
			kvs[i].raw = raw
		case "tokenizer.ggml.token_type":
			e := kvs[i]
			n, err := arrayLen(e)
			if err != nil || binary.LittleEndian.Uint32(e.raw[0:4]) != tInt32 || len(e.raw) != 12+4*n || n != len(tokens) {
				return fmt.Errorf("%s is not an array of one int32 per token", e.key)
			}
			raw := slices.Clone(e.raw)
			for j, a := range qwen25Added {
				binary.LittleEndian.PutUint32(raw[12+4*(im+1+j):], uint32(a.typ))
			}
			kvs[i].raw = raw
		}
	}
	return nil
}

// tokenPreference is the output weight of a token (see WriteModel): the
// end-of-turn tokens of the chat templates first, whitespace-only tokens
// (GPT-2's byte alphabet spells a space Ġ, a newline Ċ, a tab ĉ) last.
func tokenPreference(tok string) float32 {
	switch tok {
	case "<|im_end|>", "<|endoftext|>", "<|eot_id|>", "</s>":
		return 8
	case "<tool_call>":
		return 4
	}
	if tok != "" && strings.Trim(tok, "ĠĊĉč \n\t\r▁") == "" {
		return -8
	}
	return 0
}
