// Generator — the hand-written half of the SWIG proxy (generated: the
// constructor, ManualSeed, SetState(seed, offset)). Here: the state as a value.
namespace Tessera {

/// <summary>A generator's position (torch's Philox seed and offset): the
/// seed, and the number of 32-bit words drawn so far. Restoring it with
/// Generator.SetState makes the next op draw what an op at that position
/// drew before.</summary>
public struct GeneratorState : global::System.IEquatable<GeneratorState> {
  public ulong Seed { get; }
  public ulong Offset { get; }

  public GeneratorState(ulong seed, ulong offset) {
    Seed = seed;
    Offset = offset;
  }

  public bool Equals(GeneratorState other) => Seed == other.Seed && Offset == other.Offset;
  public override bool Equals(object obj) => obj is GeneratorState other && Equals(other);
  public override int GetHashCode() => Seed.GetHashCode() * 31 + Offset.GetHashCode();
  public static bool operator ==(GeneratorState a, GeneratorState b) => a.Equals(b);
  public static bool operator !=(GeneratorState a, GeneratorState b) => !a.Equals(b);
  public override string ToString() => "GeneratorState(seed=" + Seed + ", offset=" + Offset + ")";
}

public partial class Generator {
  /// <summary>Where the generator is now (tsr_generator_get_state). A
  /// disposed generator throws TesseraException(Status.InvalidArgument).</summary>
  public GeneratorState GetState() {
    long[] pair = NativeGetState();
    return new GeneratorState(unchecked((ulong)pair[0]), unchecked((ulong)pair[1]));
  }

  /// <summary>Moves the generator to state (tsr_generator_set_state).</summary>
  public void SetState(GeneratorState state) => SetState(state.Seed, state.Offset);
}

}
