/** The start-up baseline: the cheapest Java program that prints a line, run as `java -jar`. */
public class Hello {
    public static void main(String[] args) {
        System.out.println("hello");
    }
}
