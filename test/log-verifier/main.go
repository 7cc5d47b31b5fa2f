// An independent verifier of the service's transparency log, built on Go's own checksum-database
// code (golang.org/x/mod/sumdb/note and sumdb/tlog), which no one here wrote. test/node/log-go.test.ts
// builds it offline (GOPATH mode, the source from Debian's golang-golang-x-mod-dev) and runs it
// against the service under wrangler dev.
//
// It reads the log's checkpoint and opens it with note.Open and the published verifier key, reads
// the tiles it needs through tlog.TileHashReader (which checks every tile against the signed tree
// hash), proves and checks the inclusion of every expected leaf (tlog.ProveRecord, tlog.CheckRecord)
// and that its bytes are the entry bundle's, and proves and checks the consistency of an older
// checkpoint with the current one (tlog.ProveTree, tlog.CheckTree).
//
//	log-verifier -url http://127.0.0.1:8787 -log 0 -key <verifier key> -origin <origin> -leaves leaves.json [-old old-checkpoint]
//
// leaves.json: [{"index": 0, "leaf": "<the leaf's RFC 8785 JSON>"}, ...]. Exit status 0 when
// everything verifies; 1 with the reason otherwise.
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

const height = 8

type expected struct {
	Index int64  `json:"index"`
	Leaf  string `json:"leaf"`
}

// server reads the log's resources, each once (tiles and bundles are immutable).
type server struct {
	prefix string
	seen   map[string][]byte
}

func (s server) get(path string) ([]byte, error) {
	if data, ok := s.seen[path]; ok && path != "checkpoint" {
		return data, nil
	}
	res, err := http.Get(s.prefix + path)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %d %s", path, res.StatusCode, body)
	}
	s.seen[path] = body
	return body, nil
}

// c2spPath is Go's tile path without the height element: C2SP fixes the height at 8
// (tile/8/0/x001/234.p/5 is tile/0/x001/234.p/5).
func c2spPath(t tlog.Tile) string {
	return strings.Replace(t.Path(), fmt.Sprintf("tile/%d/", height), "tile/", 1)
}

// tiles reads hash tiles over HTTP for tlog.TileHashReader.
type tiles struct{ server }

func (tiles) Height() int { return height }

func (r tiles) ReadTiles(ts []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(ts))
	for i, t := range ts {
		data, err := r.get(c2spPath(t))
		if err != nil {
			return nil, err
		}
		out[i] = data
	}
	return out, nil
}

func (tiles) SaveTiles([]tlog.Tile, [][]byte) {}

// openCheckpoint opens a signed checkpoint with the verifier and reads its tree.
func openCheckpoint(msg []byte, verifier note.Verifier, origin string) (tlog.Tree, error) {
	n, err := note.Open(msg, note.VerifierList(verifier))
	if err != nil {
		return tlog.Tree{}, fmt.Errorf("note.Open: %w", err)
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) < 4 || lines[0] != origin {
		return tlog.Tree{}, fmt.Errorf("not a checkpoint of %s: %q", origin, n.Text)
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size < 0 || strconv.FormatInt(size, 10) != lines[1] {
		return tlog.Tree{}, fmt.Errorf("bad tree size %q", lines[1])
	}
	raw, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(raw) != tlog.HashSize {
		return tlog.Tree{}, fmt.Errorf("bad root hash %q", lines[2])
	}
	var hash tlog.Hash
	copy(hash[:], raw)
	return tlog.Tree{N: size, Hash: hash}, nil
}

// entry reads entry i from its C2SP entry bundle (big-endian uint16 length-prefixed entries).
func entry(s server, i, size int64) ([]byte, error) {
	t := tlog.Tile{H: height, L: 0, N: i / 256, W: 256}
	if (t.N+1)*256 > size {
		t.W = int(size - t.N*256)
	}
	data, err := s.get(strings.Replace(c2spPath(t), "tile/0/", "tile/entries/", 1))
	if err != nil {
		return nil, err
	}
	for k := int64(0); len(data) > 0; k++ {
		if len(data) < 2 {
			return nil, errors.New("truncated entry bundle")
		}
		n := int(data[0])<<8 | int(data[1])
		if len(data) < 2+n {
			return nil, errors.New("truncated entry bundle")
		}
		if k == i%256 {
			return data[2 : 2+n], nil
		}
		data = data[2+n:]
	}
	return nil, fmt.Errorf("entry %d is not in its bundle", i)
}

func run() error {
	url := flag.String("url", "", "the service")
	logN := flag.Int("log", 0, "the log's number")
	key := flag.String("key", "", "the log's verifier key (GET /log/keys)")
	origin := flag.String("origin", "", "the log's origin")
	leavesFile := flag.String("leaves", "", "the leaves expected, JSON")
	oldFile := flag.String("old", "", "an older checkpoint of the log, to check consistency with")
	flag.Parse()

	verifier, err := note.NewVerifier(*key)
	if err != nil {
		return fmt.Errorf("note.NewVerifier: %w", err)
	}
	s := server{prefix: fmt.Sprintf("%s/log/%d/", strings.TrimRight(*url, "/"), *logN), seen: map[string][]byte{}}
	msg, err := s.get("checkpoint")
	if err != nil {
		return err
	}
	tree, err := openCheckpoint(msg, verifier, *origin)
	if err != nil {
		return err
	}
	thr := tlog.TileHashReader(tree, tiles{s})
	root, err := tlog.TreeHash(tree.N, thr)
	if err != nil {
		return fmt.Errorf("tlog.TreeHash: %w", err)
	}
	if root != tree.Hash {
		return errors.New("the tiles' tree hash is not the checkpoint's")
	}

	var leaves []expected
	raw, err := os.ReadFile(*leavesFile)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, &leaves); err != nil {
		return err
	}
	for _, l := range leaves {
		data, err := entry(s, l.Index, tree.N)
		if err != nil {
			return err
		}
		if !bytes.Equal(data, []byte(l.Leaf)) {
			return fmt.Errorf("entry %d is %s, not %s", l.Index, data, l.Leaf)
		}
		proof, err := tlog.ProveRecord(tree.N, l.Index, thr)
		if err != nil {
			return fmt.Errorf("tlog.ProveRecord(%d): %w", l.Index, err)
		}
		if err := tlog.CheckRecord(proof, tree.N, tree.Hash, l.Index, tlog.RecordHash([]byte(l.Leaf))); err != nil {
			return fmt.Errorf("tlog.CheckRecord(%d): %w", l.Index, err)
		}
	}

	consistentWith := int64(-1)
	if *oldFile != "" {
		oldMsg, err := os.ReadFile(*oldFile)
		if err != nil {
			return err
		}
		old, err := openCheckpoint(oldMsg, verifier, *origin)
		if err != nil {
			return fmt.Errorf("the older checkpoint: %w", err)
		}
		proof, err := tlog.ProveTree(tree.N, old.N, thr)
		if err != nil {
			return fmt.Errorf("tlog.ProveTree: %w", err)
		}
		if err := tlog.CheckTree(proof, tree.N, tree.Hash, old.N, old.Hash); err != nil {
			return fmt.Errorf("tlog.CheckTree: %w", err)
		}
		consistentWith = old.N
	}
	out, _ := json.Marshal(map[string]interface{}{"origin": *origin, "size": tree.N, "leaves_checked": len(leaves), "consistent_with": consistentWith})
	fmt.Println(string(out))
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
