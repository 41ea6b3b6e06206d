{
  description = "Trellis: work tracking for people and coding agents, over MCP";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-24.11";

  outputs = { nixpkgs, ... }:
    let
      systems = [ "x86_64-linux" "aarch64-linux" "x86_64-darwin" "aarch64-darwin" ];
      forAll = f: nixpkgs.lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});
    in {
      devShells = forAll (pkgs: {
        default = pkgs.mkShell {
          packages = [ pkgs.nodejs_20 pkgs.postgresql_15 ];
          shellHook = ''
            echo "Trellis dev shell: node $(node --version), $(postgres --version)"
          '';
        };
      });
    };
}
