package io.jccl.tools.perf;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Expected strings are what C's printf (glibc) prints for the same conversion. */
class CFormatTest {

    @Test
    void fixedRoundsHalfEvenOnTheExactBinaryValue() {
        assertThat(CFormat.fixed(0.125, 2)).isEqualTo("0.12");   // Java's %.2f says 0.13
        assertThat(CFormat.fixed(0.375, 2)).isEqualTo("0.38");
        assertThat(CFormat.fixed(2.675, 2)).isEqualTo("2.67");   // 2.67499999...
        assertThat(CFormat.fixed(123456.5, 0)).isEqualTo("123456");
        assertThat(CFormat.fixed(-0.001, 2)).isEqualTo("-0.00");
        assertThat(CFormat.fixed(18.256, 2)).isEqualTo("18.26");
    }

    @Test
    void exponentHasTwoExponentDigitsAndCarries() {
        assertThat(CFormat.exponent(1.5e8, 1)).isEqualTo("1.5e+08");
        assertThat(CFormat.exponent(9.96e7, 1)).isEqualTo("1.0e+08");
        assertThat(CFormat.exponent(0.000123, 1)).isEqualTo("1.2e-04");
        assertThat(CFormat.exponent(12345678, 0)).isEqualTo("1e+07");
        assertThat(CFormat.exponent(0, 1)).isEqualTo("0.0e+00");
    }

    @Test
    void generalPicksTheShorterFormAndStripsZeros() {
        assertThat(CFormat.general(0.00123456789)).isEqualTo("0.00123457");
        assertThat(CFormat.general(1234567)).isEqualTo("1.23457e+06");
        assertThat(CFormat.general(1048576)).isEqualTo("1.04858e+06");
        assertThat(CFormat.general(100000)).isEqualTo("100000");
        assertThat(CFormat.general(1e-5)).isEqualTo("1e-05");
        assertThat(CFormat.general(0.0001)).isEqualTo("0.0001");
        assertThat(CFormat.general(12.5)).isEqualTo("12.5");
        assertThat(CFormat.general(3.0)).isEqualTo("3");
        assertThat(CFormat.general(0)).isEqualTo("0");
        assertThat(CFormat.general(2.5, 1)).isEqualTo("2");
    }

    @Test
    void cellsShrinkTheirPrecisionToFitTheWidth() {
        // time column, width 7
        assertThat(CFormat.cell(18.256, 7)).isEqualTo("  18.26");
        assertThat(CFormat.cell(9999.994, 7)).isEqualTo("9999.99");
        assertThat(CFormat.cell(12345.67, 7)).isEqualTo("12345.7");
        assertThat(CFormat.cell(123456.7, 7)).isEqualTo(" 123457");
        assertThat(CFormat.cell(1234567.8, 7)).isEqualTo("1234568");
        assertThat(CFormat.cell(1.5e8, 7)).isEqualTo("1.5e+08");
        // bandwidth columns, width 6
        assertThat(CFormat.cell(0.000438, 6)).isEqualTo("  0.00");
        assertThat(CFormat.cell(123.456, 6)).isEqualTo("123.46");
        assertThat(CFormat.cell(1234.56, 6)).isEqualTo("1234.6");
        assertThat(CFormat.cell(12345.6, 6)).isEqualTo(" 12346");
        assertThat(CFormat.cell(12345678, 6)).isEqualTo(" 1e+07");
    }

    @Test
    void nonFiniteValuesPrintLikeC() {
        assertThat(CFormat.general(Double.NaN)).isEqualTo("nan");
        assertThat(CFormat.cell(Double.POSITIVE_INFINITY, 6)).isEqualTo("   inf");
    }
}
