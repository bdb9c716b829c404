package io.jccl.tools.perf;

/**
 * One measured placement of one row, as the JSON and CSV reports store it. A value; mirrors the fields of
 * nccl-tests' JSON {@code results} entries.
 *
 * @param nWrong wrong elements summed over ranks, or -1 when not checked (printed N/A)
 */
public record ResultRecord(String collective, long sizeBytes, long count, String type, String redop, int root,
                           boolean inPlace, double timeUs, double algBwGBps, double busBwGBps, long nWrong) {
}
