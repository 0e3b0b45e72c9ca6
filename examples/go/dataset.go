package main

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"os"
	"strconv"
	"strings"
)

const (
	side    = 8
	pixels  = side * side
	classes = 10
)

// digits are the UCI handwritten digits: pixels (64 per image, grey levels
// 0..16 scaled to 0..1) and labels 0..9, in file order.
type digits struct {
	pixels []float64
	labels []int64
}

func (d *digits) n() int { return len(d.labels) }

// loadDigits reads a gzip CSV with no header, 65 integers a row: 64 pixels
// then the label (examples/data/digits.csv.gz).
func loadDigits(path string) (*digits, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer gz.Close()

	d := &digits{}
	scanner := bufio.NewScanner(gz)
	for row := 1; scanner.Scan(); row++ {
		fields := strings.Split(strings.TrimRight(scanner.Text(), "\r"), ",")
		if len(fields) != pixels+1 {
			return nil, fmt.Errorf("%s:%d: %d fields, want %d", path, row, len(fields), pixels+1)
		}
		for i, field := range fields {
			v, err := strconv.Atoi(field)
			switch {
			case err != nil:
				return nil, fmt.Errorf("%s:%d: %w", path, row, err)
			case i < pixels && (v < 0 || v > 16):
				return nil, fmt.Errorf("%s:%d: grey level %d outside 0..16", path, row, v)
			case i == pixels && (v < 0 || v >= classes):
				return nil, fmt.Errorf("%s:%d: label %d outside 0..9", path, row, v)
			case i < pixels:
				d.pixels = append(d.pixels, float64(v)/16)
			default:
				d.labels = append(d.labels, int64(v))
			}
		}
	}
	if err := scanner.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if d.n() == 0 {
		return nil, fmt.Errorf("%s: no rows", path)
	}
	return d, nil
}
