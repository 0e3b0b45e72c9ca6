package org.tessera;

/**
 * torch.nn.init: in-place initializers of a tensor (under no_grad, so parameters that require grad
 * are fine). Random ones draw from the generator given, or from {@link #defaultGenerator()}: the
 * same distributions as torch, not torch's numbers. Each returns its tensor.
 */
public final class Init {
  private Init() {}

  private static final class Default {
    /** torch's default seed. */
    static final Generator GENERATOR = new Generator(67280421310721L);
  }

  /** The generator the overloads without one draw from (seeded with torch's default seed). */
  public static Generator defaultGenerator() {
    return Default.GENERATOR;
  }

  /** torch.nn.init.calculate_gain(nonlinearity, param): param null is None. */
  public static double calculateGain(String nonlinearity, Double param) {
    return NativeTessera.init_calculate_gain(nonlinearity, param != null, param == null ? 0.0 : param);
  }

  public static double calculateGain(String nonlinearity) {
    return calculateGain(nonlinearity, null);
  }

  /**
   * torch.nn.init.kaiming_uniform_(t, a, mode, nonlinearity): uniform in [-bound, bound), bound =
   * gain * sqrt(3 / fan); mode "fan_in" or "fan_out".
   */
  public static Tensor kaimingUniform_(Tensor t, double a, String mode, String nonlinearity, Generator g) {
    NativeTessera.init_kaiming_uniform(t, a, mode, nonlinearity, g);
    return t;
  }

  /** kaiming_uniform_(t) with torch's defaults: a 0, "fan_in", "leaky_relu". */
  public static Tensor kaimingUniform_(Tensor t) {
    return kaimingUniform_(t, 0, "fan_in", "leaky_relu", defaultGenerator());
  }

  public static Tensor kaimingUniform_(Tensor t, Generator g) {
    return kaimingUniform_(t, 0, "fan_in", "leaky_relu", g);
  }

  /** torch.nn.init.xavier_uniform_(t, gain): uniform in [-b, b), b = gain * sqrt(6 / (fan_in + fan_out)). */
  public static Tensor xavierUniform_(Tensor t, double gain, Generator g) {
    NativeTessera.init_xavier_uniform(t, gain, g);
    return t;
  }

  public static Tensor xavierUniform_(Tensor t) {
    return xavierUniform_(t, 1.0, defaultGenerator());
  }

  /** torch.nn.init.zeros_. */
  public static Tensor zeros_(Tensor t) {
    NativeTessera.init_zeros(t);
    return t;
  }

  /** torch.nn.init.normal_(t, mean, std). */
  public static Tensor normal_(Tensor t, double mean, double std, Generator g) {
    NativeTessera.init_normal(t, mean, std, g);
    return t;
  }

  public static Tensor normal_(Tensor t, double mean, double std) {
    return normal_(t, mean, std, defaultGenerator());
  }

  /** torch.nn.init.uniform_(t, a, b): uniform in [a, b). */
  public static Tensor uniform_(Tensor t, double a, double b, Generator g) {
    NativeTessera.init_uniform(t, a, b, g);
    return t;
  }

  public static Tensor uniform_(Tensor t, double a, double b) {
    return uniform_(t, a, b, defaultGenerator());
  }
}
