package io.jccl.tools.plot;

import java.util.List;

/**
 * One line of a bandwidth plot: a label and its points, sorted by size. A value.
 *
 * @param label  shown in the legend, e.g. {@code jccl-np2 out-of-place}
 * @param points (size, bus bandwidth) pairs
 */
public record Series(String label, List<Point> points) {
    /** One measurement: message size in bytes and bus bandwidth in GB/s. */
    public record Point(long sizeBytes, double busBwGBps) {
    }

    public Series {
        points = points.stream().sorted(java.util.Comparator.comparingLong(Point::sizeBytes)).toList();
    }
}
