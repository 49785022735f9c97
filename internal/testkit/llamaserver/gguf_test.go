package llamaserver

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

func TestF16(t *testing.T) {
	for _, tc := range []struct {
		in   float32
		want uint16
	}{
		{0, 0}, {1, 0x3c00}, {-2, 0xc000}, {0.5, 0x3800}, {1e-9, 0}, {1e9, 0x7bff},
	} {
		if got := f16(tc.in); got != tc.want {
			t.Errorf("f16(%g) = %#04x, want %#04x", tc.in, got, tc.want)
		}
	}
}

// A generated model carries the vocabulary file's tokenizer, the template
// and the llama metadata, and its tensors fill the file to the byte.
func TestWriteModelKeepsTheTokenizerAndAddsTheModel(t *testing.T) {
	dir := t.TempDir()
	tokens := []byte{}
	tokens = binary.LittleEndian.AppendUint32(tokens, tString)
	tokens = binary.LittleEndian.AppendUint64(tokens, 3)
	for _, s := range []string{"a", "b", "<|im_end|>"} {
		tokens = appendString(tokens, s)
	}
	vocab := filepath.Join(dir, "vocab.gguf")
	if err := writeGGUF(vocab, []kv{
		kvString("general.architecture", "qwen2"),
		kvString("tokenizer.ggml.model", "gpt2"),
		{"tokenizer.ggml.tokens", tArray, tokens},
		kvU32("tokenizer.ggml.eos_token_id", 2),
		kvString("tokenizer.chat_template", "old"),
	}, nil); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "model.gguf")
	m := Model{Embedding: 8, Heads: 2, FeedForward: 16, Blocks: 2, ContextLen: 128, Seed: 7}
	if err := WriteModel(model, vocab, "{{ messages }}", m); err != nil {
		t.Fatal(err)
	}
	kvs, err := readMetadata(model)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]kv{}
	for _, e := range kvs {
		if _, dup := got[e.key]; dup {
			t.Errorf("key %s twice", e.key)
		}
		got[e.key] = e
	}
	for key, want := range map[string]kv{
		"general.architecture":    kvString("general.architecture", "llama"),
		"tokenizer.ggml.model":    kvString("tokenizer.ggml.model", "gpt2"),
		"tokenizer.chat_template": kvString("tokenizer.chat_template", "{{ messages }}"),
		"llama.vocab_size":        kvU32("llama.vocab_size", 3),
		"llama.block_count":       kvU32("llama.block_count", 2),
	} {
		if string(got[key].raw) != string(want.raw) || got[key].typ != want.typ {
			t.Errorf("%s = %q (type %d), want %q", key, got[key].raw, got[key].typ, want.raw)
		}
	}
	if n, _ := arrayLen(got["tokenizer.ggml.tokens"]); n != 3 {
		t.Errorf("tokens = %d, want 3", n)
	}
	// The data: the embeddings and the output layer (8×3 F16 each, 48
	// bytes, padded to 64), the output norm (8 F32, 32 bytes), and per block 2 norms (32 bytes each),
	// 4 attention matrices (8×8 F32, 256 bytes each) and 3 feed-forward
	// matrices (8×16 F32, 512 bytes each).
	data := uint64(2*64 + 32 + 2*(2*32+4*256+3*512))
	fi, err := os.Stat(model)
	if err != nil {
		t.Fatal(err)
	}
	header := uint64(fi.Size()) - data
	if header%ggufAlignment != 0 || header < 100 || header > 4000 {
		t.Errorf("file size %d leaves a header of %d bytes, want a positive multiple of %d", fi.Size(), header, ggufAlignment)
	}
}

func TestTokenPreference(t *testing.T) {
	for tok, want := range map[string]float32{
		"<|im_end|>": 8, "<|endoftext|>": 8, "Ġ": -8, "ĊĊ": -8, "ĠĠĠĠ": -8, "ĉ": -8, "{": 0, "Ġtrue": 0, "<tool_call>": 4, "": 0,
	} {
		if got := tokenPreference(tok); got != want {
			t.Errorf("tokenPreference(%q) = %g, want %g", tok, got, want)
		}
	}
}

func TestQwen25TokensReplaceThePadding(t *testing.T) {
	tokens := []string{"a", "<|im_end|>"}
	for i := 0; i < 25; i++ {
		tokens = append(tokens, "[PAD"+string(rune('A'+i))+"]")
	}
	var types []byte
	types = binary.LittleEndian.AppendUint32(types, tInt32)
	types = binary.LittleEndian.AppendUint64(types, uint64(len(tokens)))
	for range tokens {
		types = binary.LittleEndian.AppendUint32(types, 1)
	}
	kvs := []kv{{"tokenizer.ggml.tokens", tArray, nil}, {"tokenizer.ggml.token_type", tArray, types}}
	if err := addQwen25Tokens(kvs, tokens); err != nil {
		t.Fatal(err)
	}
	got, err := stringArray(kvs[0])
	if err != nil {
		t.Fatal(err)
	}
	if got[13] != "<tool_call>" || got[14] != "</tool_call>" || got[21] != "[PADT]" {
		t.Errorf("tokens = %q", got)
	}
	if typ := binary.LittleEndian.Uint32(kvs[1].raw[12+4*13:]); typ != uint32(tokenUserDefined) {
		t.Errorf("type of <tool_call> = %d, want user-defined", typ)
	}
	if typ := binary.LittleEndian.Uint32(kvs[1].raw[12+4*2:]); typ != uint32(tokenControl) {
		t.Errorf("type of <|object_ref_start|> = %d, want control", typ)
	}
}
