#!/usr/bin/env bash
# Builds llama.cpp's own llama-server from the source that the npm package
# node-llama-cpp ships (pinned in testdata/llamaserver/package-lock.json; its
# llama/gitRelease.bundle is a git bundle of one llama.cpp release), caches
# it, and prints the cached folder on its last line of output:
#
#   dir="$(scripts/llama-server.sh | tail -n1)"
#   WFRUN_LLAMA_SERVER="$dir/llama-server" go test -run LlamaServer ./agentapi/openai/ ./cmd/wfrun/
#
# (The tests find the tokenizer and template beside the binary;
# WFRUN_LLAMA_VOCAB and WFRUN_LLAMA_TEMPLATE name them elsewhere.)
#
# The cache is ${XDG_CACHE_HOME:-~/.cache}/wfrun/llama-server/<key>, keyed by
# node-llama-cpp's version, the llama.cpp tag it names and the commit of the
# bundle; a second run with the same pin prints the folder at once. The cold
# build takes about 10 minutes on 2 cores (621 s measured beside other
# builds, load 5-8; allow 20); it runs under nice, with
# JOBS parallel compilers (default: the number of cores).
#
# Nothing is fetched but the npm package: npm ci runs with --ignore-scripts
# and --omit=optional (none of node-llama-cpp's prebuilt binaries), the web
# UI is neither built nor downloaded (LLAMA_BUILD_UI=OFF,
# LLAMA_USE_PREBUILT_UI=OFF), HTTPS support is off (LLAMA_OPENSSL=OFF), and
# only the llama-server target is built. The build needs cmake and a C++
# compiler: as root on Debian, a missing cmake is installed with apt-get.
#
# The folder also holds the tokenizer and chat template the tests give the
# model they generate: the vocabulary-only GGUF models/ggml-vocab-qwen2.gguf
# and models/templates/Qwen-Qwen2.5-7B-Instruct.jinja of the same source,
# and VERSION, which names what was built.
set -euo pipefail
cd "$(dirname "$0")/.."
pkgdir=testdata/llamaserver

if ! command -v npm >/dev/null 2>&1; then
	echo "llama-server.sh: npm not found: install Node.js and npm, which fetch the pinned node-llama-cpp" >&2
	exit 1
fi
if [ ! -f "$pkgdir/node_modules/node-llama-cpp/llama/gitRelease.bundle" ]; then
	echo "+ npm ci --prefix $pkgdir --ignore-scripts --omit=optional" >&2
	npm ci --prefix "$pkgdir" --ignore-scripts --omit=optional --no-audit --no-fund --loglevel=error >&2
fi
llama="$pkgdir/node_modules/node-llama-cpp/llama"
nlc_version="$(node -p "require('./$pkgdir/node_modules/node-llama-cpp/package.json').version")"
tag="$(node -p "require('./$llama/llama.cpp.info.json').tag")"
commit="$(git bundle list-heads "$llama/gitRelease.bundle" | awk '$2 == "HEAD" { print $1 }')"
if [ -z "$commit" ]; then
	commit="$(git bundle list-heads "$llama/gitRelease.bundle" | awk 'NR == 1 { print $1 }')"
fi
key="node-llama-cpp-$nlc_version-llama.cpp-$tag-${commit:0:12}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/wfrun/llama-server/$key"

if [ -x "$cache/llama-server" ] && [ -f "$cache/VERSION" ]; then
	echo "llama-server.sh: cached: $(cat "$cache/VERSION")" >&2
	echo "$cache"
	exit 0
fi

if ! command -v cmake >/dev/null 2>&1; then
	if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
		echo "+ apt-get install -y cmake" >&2
		apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cmake >&2
	else
		echo "llama-server.sh: cmake not found: install it (Debian: apt-get install cmake)" >&2
		exit 1
	fi
fi

work="$cache.build"
rm -rf "$work"
mkdir -p "$work"
echo "+ git clone $llama/gitRelease.bundle $work/src" >&2
git -c advice.detachedHead=false clone -q "$llama/gitRelease.bundle" "$work/src" >&2
jobs="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
start=$(date +%s)
echo "+ cmake -S $work/src -B $work/build (Release, static, no UI, no OpenSSL)" >&2
nice cmake -S "$work/src" -B "$work/build" \
	-DCMAKE_BUILD_TYPE=Release \
	-DBUILD_SHARED_LIBS=OFF \
	-DLLAMA_BUILD_UI=OFF \
	-DLLAMA_USE_PREBUILT_UI=OFF \
	-DLLAMA_OPENSSL=OFF \
	-DLLAMA_BUILD_TESTS=OFF \
	-DLLAMA_BUILD_EXAMPLES=OFF \
	-DLLAMA_BUILD_APP=OFF \
	-DGGML_NATIVE=ON >&2
echo "+ nice cmake --build $work/build --target llama-server -j $jobs" >&2
nice cmake --build "$work/build" --target llama-server -j "$jobs" >&2
end=$(date +%s)

mkdir -p "$cache.tmp"
cp "$work/build/bin/llama-server" "$cache.tmp/"
cp "$work/src/models/ggml-vocab-qwen2.gguf" "$cache.tmp/"
cp "$work/src/models/templates/Qwen-Qwen2.5-7B-Instruct.jinja" "$cache.tmp/"
server_version="$("$cache.tmp/llama-server" --version 2>&1 | grep -m1 -i version || true)"
printf 'node-llama-cpp %s, llama.cpp %s (commit %s), %s; built in %ss with %s jobs\n' \
	"$nlc_version" "$tag" "$commit" "$server_version" "$((end - start))" "$jobs" >"$cache.tmp/VERSION"
rm -rf "$cache"
mv "$cache.tmp" "$cache"
rm -rf "$work"
echo "llama-server.sh: built: $(cat "$cache/VERSION")" >&2
echo "$cache"
